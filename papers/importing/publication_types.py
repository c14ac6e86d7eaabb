"""What kind of publication a record is (papers.choices.PublicationType), from each source's
own word for it, and which of two sources' words a paper keeps.

- Crossref: the work's `type` (journal-article, proceedings-article, posted-content, ...).
- BibTeX: the entry type (@article, @inproceedings, @misc with an arXiv eprint, ...); an entry
  whose journal or booktitle is arXiv ("arXiv preprint arXiv:2301.01234", as Google Scholar
  writes them) is a preprint whatever its type.
- RIS: the TY tag (JOUR, CPAPER, UNPB, ...), with the same rule for arXiv.
- arXiv: a preprint, unless its journal reference names a venue (papers.importing.arxiv).
- OpenReview and the seed formats (JSONL, CSV, table dumps, abstract lists), which name a
  venue but no type: `from_venue_tags` (validate_record applies it to a record that has no
  type): a status a paper not accepted has ("Submitted", "Rejected", ...) is a preprint, a
  journal (TMLR) a journal article, any other venue a conference or workshop paper.
"""

from __future__ import annotations

from collections.abc import Iterable

from papers.choices import PublicationType
from papers.venues import is_journal, is_preprint_server

Type = PublicationType

# Crossref's work types (https://api.crossref.org/types); any other is OTHER.
_CROSSREF = {
    "journal-article": Type.JOURNAL_ARTICLE,
    "proceedings-article": Type.CONFERENCE_PAPER,
    "posted-content": Type.PREPRINT,  # a preprint, working paper or the like, posted
    "preprint": Type.PREPRINT,
    "book-chapter": Type.BOOK_CHAPTER,
    "book-section": Type.BOOK_CHAPTER,
    "book-part": Type.BOOK_CHAPTER,
    "book-track": Type.BOOK_CHAPTER,
    "reference-entry": Type.BOOK_CHAPTER,
    "book": Type.BOOK,
    "monograph": Type.BOOK,
    "edited-book": Type.BOOK,
    "reference-book": Type.BOOK,
    "dissertation": Type.THESIS,
    "report": Type.REPORT,
    "report-component": Type.REPORT,
}
# BibTeX's and biblatex's entry types; @misc, @unpublished, @online and any other are a
# preprint with an arXiv id, else OTHER.
_BIBTEX = {
    "article": Type.JOURNAL_ARTICLE,
    "inproceedings": Type.CONFERENCE_PAPER,
    "conference": Type.CONFERENCE_PAPER,
    "incollection": Type.BOOK_CHAPTER,
    "inbook": Type.BOOK_CHAPTER,
    "book": Type.BOOK,
    "phdthesis": Type.THESIS,
    "mastersthesis": Type.THESIS,
    "thesis": Type.THESIS,
    "techreport": Type.REPORT,
    "report": Type.REPORT,
}
# RIS reference types (the 2011 specification's, as Zotero and EndNote write them).
_RIS = {
    "JOUR": Type.JOURNAL_ARTICLE,
    "EJOUR": Type.JOURNAL_ARTICLE,
    "JFULL": Type.JOURNAL_ARTICLE,
    "CPAPER": Type.CONFERENCE_PAPER,
    "CONF": Type.CONFERENCE_PAPER,
    "CHAP": Type.BOOK_CHAPTER,
    "ECHAP": Type.BOOK_CHAPTER,
    "BOOK": Type.BOOK,
    "EBOOK": Type.BOOK,
    "EDBOOK": Type.BOOK,
    "THES": Type.THESIS,
    "RPRT": Type.REPORT,
    "UNPB": Type.PREPRINT,
}
# Tracks a paper OpenReview did not (or not yet) accept is given (papers.importing.openreview's
# statuses), lower case.
_NOT_ACCEPTED_TRACKS = frozenset({"submitted", "withdrawn", "desk rejected", "rejected"})
# How much a type says: a paper keeps the type saying most (merged_type). A preprint says
# little once the paper is published; OTHER only that it is none of the known kinds.
_WEIGHT = {"": 0, Type.OTHER: 1, Type.PREPRINT: 2}
_PUBLISHED = 3


def from_crossref(work_type: str) -> str:
    return _CROSSREF.get(work_type.strip().lower(), Type.OTHER) if work_type.strip() else ""


def from_bibtex(entry_type: str, cited_venue: str, arxiv_id: str) -> str:
    if cited_venue and is_preprint_server(cited_venue):
        return Type.PREPRINT
    known = _BIBTEX.get(entry_type.strip().lower())
    return known or (Type.PREPRINT if arxiv_id else Type.OTHER)


def from_ris(reference_type: str, cited_venue: str, arxiv_id: str) -> str:
    if cited_venue and is_preprint_server(cited_venue):
        return Type.PREPRINT
    known = _RIS.get(reference_type.strip().upper())
    return known or (Type.PREPRINT if arxiv_id else Type.OTHER)


def from_venue_tags(tags: Iterable[str]) -> str:
    """The type a record's venue and track tags imply ("" without any tag): OpenReview's
    [venue, status] of a paper not accepted is a preprint; a journal's paper a journal
    article; a paper at any other venue a conference (or workshop) paper."""
    names = [" ".join(tag.split()) for tag in tags if tag.strip()]
    if not names:
        return ""
    if any(name.casefold() in _NOT_ACCEPTED_TRACKS for name in names):
        return Type.PREPRINT
    if any(is_journal(name) for name in names):
        return Type.JOURNAL_ARTICLE
    return Type.CONFERENCE_PAPER


def merged_type(current: str, incoming: str) -> str:
    """The type a paper keeps when a source says `incoming`: the one saying more (a preprint
    that a later source publishes becomes the published kind; a published paper never goes
    back to a preprint); between two published kinds, the one the paper has."""
    if _WEIGHT.get(incoming, _PUBLISHED) > _WEIGHT.get(current, _PUBLISHED):
        return incoming
    return current
