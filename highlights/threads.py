"""A lab highlight's discussion, through the comments the paper page already has.

Sharing a highlight with the lab posts a comment under the paper in its author's name (the
quote, its page and the note), so the lab replies to it as to any comment: the highlight's
author hears of replies, the members its note mentions are told, the paper's readers see it
(annotations.discussion). A private highlight has no comment; making a lab highlight private
again, or deleting it, withdraws its comment: its text is gone for good (blanked, or the comment
deleted when nothing replies to it), so no restore in the admin can show it again.
"""

from __future__ import annotations

import re

from annotations import discussion, services
from annotations.models import Comment
from highlights.models import Highlight

# What Markdown (with annotations.markdown's math) reads as syntax within a line, and at a
# line's start (headings, quotes, lists, rules). Escaping only these keeps the comment's
# source, which recent activity and notifications quote, close to the PDF's words.
_INLINE_SYNTAX = re.compile(r"([\\`*_$<&~|])")
_LINE_START_SYNTAX = re.compile(r"^(\s*)([#>+=-])")
_LINE_START_NUMBER = re.compile(r"^(\s*\d+)([.)])")


def markdown_literal(text: str) -> str:
    """`text` as Markdown that shows it as written: no emphasis, link, heading, list, math or
    HTML made of a PDF's words. Brackets become character references, since "\\[" opens
    display math (annotations.markdown's dollarmath)."""
    lines = []
    for line in text.splitlines():
        line = _INLINE_SYNTAX.sub(r"\\\1", line)
        line = _LINE_START_SYNTAX.sub(r"\1\\\2", line)
        line = _LINE_START_NUMBER.sub(r"\1\\\2", line)
        lines.append(line.replace("[", "&#91;").replace("]", "&#93;"))
    return "\n".join(lines)


def comment_body(highlight: Highlight) -> str:
    """Markdown: the quote (literal) as a block quote with its page, then the note (the
    member's Markdown, with its mentions)."""
    lines = markdown_literal(highlight.exact).splitlines()
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in lines)
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
    """After an edit of a lab highlight: the comment says what the highlight now says
    (mentions the edit adds are told, those it drops and not yet read are untold). A comment
    removed in the discussion stays removed: an edit does not bring a moderated thread back."""
    comment = highlight.comment
    if comment is None:
        open_thread(highlight)
    elif comment.is_removed:
        return  # removed in the discussion (by its author, or a moderator): left so
    elif comment.body != comment_body(highlight):
        discussion.edit_comment(comment=comment, body=comment_body(highlight))


def close_thread(highlight: Highlight) -> None:
    """The highlight is private again or deleted: its comment is withdrawn, replies kept."""
    comment = highlight.comment
    if comment is None:
        return
    if highlight.pk is not None:
        highlight.comment = None
        Highlight.objects.filter(pk=highlight.pk).update(comment=None)
    services.withdraw_comment(comment=comment, by=highlight.author)
