"""The Highlights sections of the paper page's panel and of a reading list's page (loaded by
their templates, which name this library rather than importing it: annotations never imports
highlights)."""

from __future__ import annotations

from django import template

from highlights import selectors
from highlights.models import reader_url
from highlights.services import current_pdf_sha256

register = template.Library()

# A list's page shows its newest highlights; each paper's panel has them all.
LIST_HIGHLIGHTS_SHOWN = 30


@register.inclusion_tag("highlights/_paper_highlights.html", takes_context=True)
def paper_highlights(context, paper):
    """The paper's highlights the member may see, newest first: one query (the PDF's hash
    comes with the paper page's select_related("pdf_file"))."""
    request = context["request"]
    sha = current_pdf_sha256(paper)
    highlights = selectors.paper_highlights(request.user, paper, newest_first=True)
    for highlight in highlights:
        highlight.stale = highlight.needs_anchor(sha)
    return {
        "request": request,
        "user": request.user,
        "highlights": highlights,
        "reader_url": reader_url(paper.pk),
    }


@register.inclusion_tag("highlights/_list_highlights.html", takes_context=True)
def list_highlights(context, reading_list):
    """Who highlighted what in the list's papers, newest first, as the member may see them
    (the lab's, and their own private ones): one query."""
    request = context["request"]
    highlights = selectors.list_highlights(request.user, reading_list, limit=LIST_HIGHLIGHTS_SHOWN)
    return {
        "request": request,
        "user": request.user,
        "highlights": highlights,
        "shown": LIST_HIGHLIGHTS_SHOWN,
    }
