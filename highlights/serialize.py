"""A highlight as the reader's JSON (docs/highlights.md has the contract)."""

from __future__ import annotations

from typing import Any

from highlights.models import Highlight
from papers.routes import int_url


def highlight_item(highlight: Highlight, user, current_sha256: str) -> dict[str, Any]:
    thread_url = None
    if highlight.comment_id is not None:  # the comment's own URL, without reading it
        thread_url = (
            f"{int_url('papers:detail', highlight.paper_id)}#comment-{highlight.comment_id}"
        )
    return {
        "id": highlight.pk,
        "page": highlight.page,
        "exact": highlight.exact,
        "quote": highlight.quote,
        "prefix": highlight.prefix,
        "suffix": highlight.suffix,
        "start": highlight.start,
        "end": highlight.end,
        "note": highlight.note,
        "visibility": highlight.visibility,
        "author": highlight.author.get_username(),
        "mine": highlight.author_id == user.pk,
        "can_anchor": highlight.may_be_anchored_by(user),
        "orphaned": highlight.orphaned,
        "needs_anchor": highlight.needs_anchor(current_sha256),
        "replies": getattr(highlight, "reply_count", 0),
        "thread_url": thread_url,
        "created_at": highlight.created_at.isoformat(),
    }
