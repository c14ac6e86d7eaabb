"""A lab highlight's discussion, through the comments the paper page already has.

Sharing a highlight with the lab posts a comment under the paper in its author's name (the
quote, its page and the note), so the lab replies to it as to any comment: the highlight's
author hears of replies, the members its note mentions are told, the paper's readers see it
(annotations.discussion). A private highlight has no comment; making a lab highlight private
again, or deleting it, withdraws its comment: its text is gone for good (blanked, or the comment
deleted when nothing replies to it), so no restore in the admin can show it again.
"""

from __future__ import annotations

from annotations import discussion, services
from annotations.models import Comment
from highlights.markdown_text import quoted_literal
from highlights.models import Highlight


def comment_body(highlight: Highlight) -> str:
    """Markdown: the quote (literal, its line breaks joined) as a block quote with its page,
    then the note (the member's Markdown, with its mentions)."""
    body = f"Highlighted on page {highlight.page} of the PDF:\n\n{quoted_literal(highlight.quote)}"
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
