"""Context for the annotation panel on the paper page and for each of its htmx sections.

For a logged-in user the panel costs three queries (own notes, own lists with whether the
paper is in each, comments and their replies with authors); lab tags reuse the paper page's
prefetch; an anonymous visitor costs none.
"""

from __future__ import annotations

from typing import Any

from annotations import drafts, selectors
from annotations.forms import CommentForm, LabTagForm, NoteForm
from papers.models import Paper

SECTIONS = {
    "tags": "annotations/_paper_tags.html",
    "notes": "annotations/_paper_notes.html",
    "lists": "annotations/_paper_lists.html",
    "comments": "annotations/_comments.html",
}


def panel_context(request, paper: Paper, **overrides: Any) -> dict[str, Any]:
    user = request.user
    context: dict[str, Any] = {
        "paper": paper,
        "user": user,
        "request": request,
        "lab_tags": selectors.lab_paper_tags(paper),
        "tag_form": LabTagForm(),
    }
    if user.is_authenticated:
        context.update(
            notes=selectors.paper_notes(user, paper),
            note_form=NoteForm(),
            reading_lists=selectors.lists_with_paper(user, paper),
            **comments_context(paper, overrides),
        )
    # What a plain form post had refused (no JavaScript): back in its box.
    context.update(drafts.take(request, paper))
    context.update(overrides)
    return context


def section_context(request, paper: Paper, section: str, **overrides: Any) -> dict[str, Any]:
    """Only what one section needs, for an htmx refresh of that section."""
    user = request.user
    context: dict[str, Any] = {"paper": paper, "user": user, "request": request}
    if section == "tags":
        lab_tags = selectors.lab_paper_tags(paper)
        context.update(lab_tags=lab_tags, tag_form=LabTagForm())
    elif section == "notes":
        context.update(notes=selectors.paper_notes(user, paper), note_form=NoteForm())
    elif section == "lists":
        # The Save panel's "In: ..." line shows the same memberships, so the refreshed section
        # brings the panel's triage block along, swapped out of band (see _paper_lists.html).
        context.update(reading_lists=selectors.lists_with_paper(user, paper), save_panel_oob=True)
    elif section == "comments":
        context.update(comments_context(paper, overrides))
    context.update(overrides)
    return context


def comments_context(paper: Paper, overrides: dict[str, Any]) -> dict[str, Any]:
    """The threads, each top-level comment with its own reply form (ids apart); a reply that
    failed (`reply_form`, `reply_to` in overrides, taken out of them) comes back under the
    comment it answers, or in the main form when that comment takes no replies here."""
    failed = overrides.pop("reply_form", None)
    reply_to = str(overrides.pop("reply_to", ""))
    comments = selectors.paper_comments(paper)
    context: dict[str, Any] = {"comments": comments, "comment_form": CommentForm()}
    for comment in comments:
        if comment.is_removed:
            continue  # takes no replies, so has no reply form
        form = failed if failed is not None and str(comment.pk) == reply_to else CommentForm()
        if form is failed:
            failed = None
        form.auto_id = f"reply{comment.pk}_%s"
        form.fields["body"].label = "Reply"
        form["body"].label = "Reply"  # a failed form's field was bound (labelled) when checked
        comment.reply_form = form
    if failed is not None:
        context["comment_form"] = failed
    return context
