"""A lab highlight's discussion, through the comments the paper page already has.

Sharing a highlight with the lab posts a comment under the paper in its author's name (the
quote, its page and the note), so the lab replies to it as to any comment: the highlight's
author hears of replies, the members its note mentions are told, the paper's readers see it
(annotations.discussion). A private highlight has no comment; making a lab highlight private
again removes its comment as its author would (the replies keep their thread).
"""

from __future__ import annotations

from annotations import discussion, services
from annotations.models import Comment
from highlights.models import Highlight


def comment_body(highlight: Highlight) -> str:
    """Markdown: the quote as a block quote with its page, then the note."""
    quoted = "\n".join(f"> {line}" if line else ">" for line in highlight.exact.splitlines())
    body = f"Highlighted on page {highlight.page} of the PDF:\n\n{quoted}"
    return f"{body}\n\n{highlight.note}" if highlight.note else body


def open_thread(highlight: Highlight) -> Comment:
    comment = discussion.post_comment(
        paper=highlight.paper, author=highlight.author, body=comment_body(highlight)
    )
    highlight.comment = comment
    highlight.save(update_fields=["comment", "updated_at"])
    return comment


def update_thread(highlight: Highlight) -> None:
    """After an edit of the note: the comment says what the highlight now says (mentions the
    edit adds are told, those it drops and not yet read are untold)."""
    comment = highlight.comment
    if comment is None or comment.is_removed:
        open_thread(highlight)
    elif comment.body != comment_body(highlight):
        discussion.edit_comment(comment=comment, body=comment_body(highlight))


def close_thread(highlight: Highlight) -> None:
    """The highlight is private again or deleted: its comment is removed, replies kept."""
    comment = highlight.comment
    if comment is not None and not comment.is_removed:
        services.remove_comment(comment=comment, by=highlight.author)
    if highlight.pk is not None and highlight.comment_id is not None:
        highlight.comment = None
        Highlight.objects.filter(pk=highlight.pk).update(comment=None)
