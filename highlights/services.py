"""Writes: a highlight with its thread and the member's remembered visibility, atomically."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from highlights import threads
from highlights.models import Highlight, HighlightPreference, HighlightVisibility
from papers.models import Paper


def current_pdf_sha256(paper: Paper) -> str:
    """The SHA-256 of the paper's stored PDF, "" without one (read by the lookup name, so the
    page's select_related("pdf_file") is reused when there was one)."""
    try:
        return paper.pdf_file.sha256
    except Paper.pdf_file.RelatedObjectDoesNotExist:
        return ""


def default_visibility(user) -> str:
    if not user.is_authenticated:
        return HighlightVisibility.PRIVATE
    preference = HighlightPreference.objects.filter(user=user).first()
    return preference.default_visibility if preference else HighlightVisibility.PRIVATE


def remember_visibility(user, visibility: str) -> None:
    HighlightPreference.objects.update_or_create(
        user=user, defaults={"default_visibility": visibility}
    )


@transaction.atomic
def create_highlight(*, paper: Paper, author, fields: dict[str, Any]) -> Highlight:
    """`fields` as HighlightForm cleaned them; a blank visibility is the member's default,
    and the visibility used becomes the default."""
    visibility = fields.get("visibility") or default_visibility(author)
    highlight = Highlight.objects.create(
        paper=paper,
        author=author,
        page=fields["page"],
        exact=fields["exact"],
        prefix=fields.get("prefix", ""),
        suffix=fields.get("suffix", ""),
        start=fields["start"],
        end=fields["end"],
        note=fields.get("note", ""),
        visibility=visibility,
        pdf_sha256=current_pdf_sha256(paper),
    )
    remember_visibility(author, visibility)
    if highlight.is_shared:
        threads.open_thread(highlight)
    return highlight


@transaction.atomic
def edit_highlight(*, highlight: Highlight, changes: dict[str, str]) -> Highlight:
    """The owner's edit of the note and visibility (those of `changes` given)."""
    was_shared = highlight.is_shared
    if "note" in changes:
        highlight.note = changes["note"]
    if changes.get("visibility"):
        highlight.visibility = changes["visibility"]
        remember_visibility(highlight.author, highlight.visibility)
    highlight.save()
    if highlight.is_shared:
        threads.update_thread(highlight)
    elif was_shared:
        threads.close_thread(highlight)
    return highlight


@transaction.atomic
def delete_highlight(*, highlight: Highlight) -> None:
    threads.close_thread(highlight)
    highlight.delete()


def anchor_highlight(
    *, highlight: Highlight, fields: dict[str, Any], orphaned: bool, by
) -> Highlight:
    """Where the reader found the highlight in the paper's present PDF, or that it could not,
    as reported by `by` (Highlight.may_be_anchored_by), who is recorded with the time. Only the
    selectors change: not the quote, the note, the visibility or the author. An orphaned
    highlight keeps its last place; the present file is recorded either way, so the reader does
    not look again until the file changes."""
    highlight.pdf_sha256 = current_pdf_sha256(highlight.paper)
    highlight.orphaned = orphaned
    highlight.anchored_by, highlight.anchored_at = by, timezone.now()
    names = ["pdf_sha256", "orphaned", "anchored_by", "anchored_at"]
    if not orphaned:
        for name in ("page", "start", "end", "prefix", "suffix"):
            setattr(highlight, name, fields[name])
        names += ["page", "start", "end", "prefix", "suffix"]
    # update_fields: a re-anchor is not an edit, and the note is not re-rendered.
    Highlight.objects.filter(pk=highlight.pk).update(
        **{name: getattr(highlight, name) for name in names}
    )
    return highlight
