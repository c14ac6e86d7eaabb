"""A paper's Cite section (annotations/_citation.html): what the paper page fetches when the
section comes into view, or, without JavaScript, a page of its own."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from annotations.templatetags.citation_tags import citation_context
from annotations.views.common import HtmxHttpRequest
from papers.models import Paper


def paper_cite(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.with_people_and_tags(), pk=paper_pk)
    context = citation_context(paper)
    template = "annotations/_citation.html" if request.htmx else "annotations/paper_cite.html"
    return render(request, template, context)
