""" "My notes and highlights" downloads: a paper's, or a reading list's the member may read.
Only the member's own notes and highlights, whoever owns the list."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from annotations.selectors import visible_lists
from highlights import markdown_export, selectors
from papers.downloads import served_as_file
from papers.models import Paper


def _download(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type=markdown_export.MEDIA_TYPE)
    return served_as_file(response, filename=f"{name}.md", attachment=True)


def _name(text: str, fallback: str) -> str:
    # ASCII letters, digits and hyphens only.
    return f"notes-{slugify(text)[:60].strip('-') or fallback}"


@require_safe
@login_required
def paper_export(request: HttpRequest, pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.defer("abstract"), pk=pk)
    notes, highlights = selectors.own_notes_and_highlights(request.user, [paper.pk])
    text = markdown_export.paper_section(
        paper,
        notes.get(paper.pk, []),
        highlights.get(paper.pk, []),
        url=request.build_absolute_uri(paper.get_absolute_url()),
    )
    return _download(text, _name(paper.title, f"paper-{paper.pk}"))


@require_safe
@login_required
def list_export(request: HttpRequest, pk: int) -> HttpResponse:
    """A list the member may read (their own or a shared one); another's private list is 404."""
    reading_list = get_object_or_404(visible_lists(request.user), pk=pk)
    papers = selectors.list_papers(reading_list)
    notes, highlights = selectors.own_notes_and_highlights(request.user, [p.pk for p in papers])
    text = markdown_export.papers_document(
        f"My notes and highlights: {reading_list.name}",
        papers,
        notes,
        highlights,
        url_of=lambda paper: request.build_absolute_uri(paper.get_absolute_url()),
    )
    return _download(text, _name(reading_list.name, f"list-{reading_list.pk}"))
