"""Private notes: only their owner ever sees or changes them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from annotations import selectors
from annotations.forms import NoteForm
from annotations.models import Note
from annotations.views.common import (
    HtmxHttpRequest,
    finish,
    next_url,
    paper_anchor,
    paper_section,
    unconfirmed_delete,
)
from papers.models import Paper

NOTES_PER_PAGE = 20


def _get_note_for_user(request: HttpRequest, pk: int) -> Note:
    return get_object_or_404(Note.objects.select_related("paper"), pk=pk, owner=request.user)


@login_required
def my_notes(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")[:200]
    notes = selectors.notes_for_owner(request.user, query=query)
    page = Paginator(notes, NOTES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "annotations/my_notes.html", {"page": page, "q": query})


@require_POST
@login_required
def note_add(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = NoteForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            template, context = paper_section(request, paper, "notes", note_form=form)
            return render(request, template, context)
        return render(request, "annotations/note_form.html", {"form": form, "paper": paper})
    note = form.save(commit=False)
    note.owner = request.user
    note.paper = paper
    note.save()
    return finish(
        request,
        "Note saved.",
        redirect_to=paper_anchor(paper, "notes"),
        fragment=paper_section(request, paper, "notes"),
    )


@login_required
def note_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A page of its own without JavaScript; with htmx, the note turns into its form in place."""
    note = _get_note_for_user(request, pk)
    data = request.POST if request.method == "POST" else None
    form = NoteForm(data, instance=note, auto_id=f"note{note.pk}_%s")
    if request.method == "POST" and form.is_valid():
        form.save()
        if request.htmx:
            context = {"note": note, "flash": "Note updated.", "flash_level": "success"}
            return render(request, "annotations/_note.html", context)
        return finish(
            request,
            "Note updated.",
            redirect_to=next_url(request, paper_anchor(note.paper, "notes")),
        )
    if request.htmx and request.GET.get("cancel"):
        # In place, like the comments' Cancel; the keyboard goes back to the Edit link.
        return render(request, "annotations/_note.html", {"note": note, "focus_edit": True})
    if request.htmx:
        return render(request, "annotations/_note_edit.html", {"form": form, "note": note})
    return render(
        request,
        "annotations/note_form.html",
        {"form": form, "note": note, "paper": note.paper, "next": next_url(request, "")},
    )


@require_POST
@login_required
def note_delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    note = _get_note_for_user(request, pk)
    paper = note.paper
    back = next_url(request, paper_anchor(paper, "notes"))
    if asking := unconfirmed_delete(request, question="Delete this note?", cancel_url=back):
        return asking
    note.delete()
    return finish(
        request,
        "Note deleted.",
        redirect_to=next_url(request, paper_anchor(paper, "notes")),
        fragment=paper_section(request, paper, "notes"),
    )
