"""The paper page's "Cite" section: its BibTeX entry (the same as in every export) and
formatted references in common styles, rendered here with citeproc-py and the CSL style files
kept in annotations/csl/ (nothing is fetched at run time).

citeproc-py takes about 13 ms per reference, as long as the rest of the paper page, so the
page does not render the section: it asks for it when the section scrolls into view
(`{% paper_citation_placeholder paper %}`, then annotations.views.cite), and without
JavaScript links to a page of its own. The catalogue (`papers`) never imports `annotations`,
where the export formats live, hence template tags.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from django import template

from annotations import exports
from papers.models import Paper

register = template.Library()

_STYLES_DIR = Path(__file__).resolve().parent.parent / "csl"
# (CSL style file name in _STYLES_DIR, label): the styles the section offers, in order.
STYLES = (("apa", "APA"), ("ieee", "IEEE"))
# A numbered style labels its one reference "[1]": nothing to number in a single citation.
_NUMBER_LABEL = re.compile(r"^\[\d+\]\s*")


@cache
def _style(name: str) -> CitationStylesStyle:
    # Parsed once per process: the style files do not change while it runs.
    return CitationStylesStyle(str(_STYLES_DIR / f"{name}.csl"), validate=False)


def formatted_reference(record: dict[str, object], style: str) -> str:
    """One CSL-JSON record as plain text in a CSL style (the template escapes it)."""
    source = CiteProcJSON([record])
    bibliography = CitationStylesBibliography(_style(style), source, formatter.plain)
    bibliography.register(Citation([CitationItem(str(record["id"]))]))
    text = _NUMBER_LABEL.sub("", str(bibliography.bibliography()[0]))
    return _without_repeated_title(_number_as_written(text, record), record)


def _number_as_written(text: str, record: dict[str, object]) -> str:
    """The item's number as written: APA capitalises it ("capitalize-first"), which CSL does
    to a lowercase word only, but citeproc-py does to any, so a preprint's "(arXiv:2402.01234)"
    read "(ArXiv:2402.01234)". Pandoc's citeproc leaves it as written."""
    number = str(record.get("number") or "")
    capitalised = number[:1].upper() + number[1:]
    return text.replace(capitalised, number) if capitalised != number else text


def _without_repeated_title(text: str, record: dict[str, object]) -> str:
    """A reference without authors, with its title written once.

    With no author, a style's <substitute> puts the title in the author's place; the CSL
    specification then suppresses the title where it would normally appear, but citeproc-py
    does not, so APA read "Title. (2024). Title. Venue." (APA 7: "Title. (2024). Venue.").
    Most OpenReview exports name no authors, so this is most references in practice."""
    title = str(record.get("title") or "")
    if record.get("author") or not title:
        return text
    first = text.find(title)
    second = text.find(title, first + len(title)) if first != -1 else -1
    if second == -1:
        return text
    head = text[:second].rstrip()
    # The period and space the style put after the repeated title go with it.
    tail = text[second + len(title) :].lstrip(". ")
    return f"{head} {tail}" if tail else head


@register.inclusion_tag("annotations/_citation_placeholder.html")
def paper_citation_placeholder(paper: Paper) -> dict[str, object]:
    """Where the Cite section goes on the paper page, loaded when it comes into view."""
    return {"paper": paper}


def citation_context(paper: Paper) -> dict[str, object]:
    """What annotations/_citation.html shows for `paper`, read with its authorships (with
    authors) and tags prefetched, so this adds no query."""
    paper.author_list = [authorship.author.name for authorship in paper.authorships.all()]
    record = exports.csl_record(paper)
    # A reference a person reads needs some title: without one, APA's reads "(2024). Venue.".
    record.setdefault("title", exports.UNTITLED)
    return {
        "paper": paper,
        "bibtex": exports.bibtex_entry(paper),
        "references": [(slug, label, formatted_reference(record, slug)) for slug, label in STYLES],
    }
