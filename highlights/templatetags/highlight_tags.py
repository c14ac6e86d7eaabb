"""The paper page's Highlights section (loaded by annotations/_panel.html, which names this
library rather than importing it: annotations never imports highlights)."""

from __future__ import annotations

from django import template

from highlights import selectors
from highlights.models import reader_url
from highlights.services import current_pdf_sha256

register = template.Library()


@register.inclusion_tag("highlights/_paper_highlights.html", takes_context=True)
def paper_highlights(context, paper):
    """The paper's highlights the member may see, in page order: one query (the PDF's hash
    comes with the paper page's select_related("pdf_file"))."""
    user = context["request"].user
    sha = current_pdf_sha256(paper)
    highlights = selectors.paper_highlights(user, paper)
    for highlight in highlights:
        highlight.stale = highlight.needs_anchor(sha)
    return {
        "paper": paper,
        "user": user,
        "highlights": highlights,
        "reader_url": reader_url(paper.pk),
    }
