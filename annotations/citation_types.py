"""Which entry type a paper is cited as in each format: BibTeX, CSL (the Cite box's APA and
IEEE, CSL-JSON) and RIS, from its publication type (papers.choices.PublicationType, as its
sources said: papers.importing.publication_types).

A paper no source typed is cited as what it shows itself to be: a paper at a venue as a
conference paper (OpenReview's and the seed files' papers, before types were kept), an arXiv
paper without a venue as a preprint, anything else as `@misc`.
"""

from __future__ import annotations

from dataclasses import dataclass

from papers.choices import PublicationType

Type = PublicationType


@dataclass(frozen=True)
class EntryType:
    bibtex: str  # the BibTeX entry type
    # The BibTeX field naming the venue; "": the venue is not cited, in any format (CSL's
    # container-title, RIS's T2 name it otherwise).
    bibtex_venue: str
    csl: str  # the CSL item type
    ris: str  # the RIS reference type (TY)

    @property
    def cites_venue(self) -> bool:
        return bool(self.bibtex_venue)


ENTRY_TYPES = {
    Type.JOURNAL_ARTICLE: EntryType("article", "journal", "article-journal", "JOUR"),
    Type.CONFERENCE_PAPER: EntryType("inproceedings", "booktitle", "paper-conference", "CPAPER"),
    # A preprint is cited by its server ("arXiv"), never by a venue it was submitted to.
    Type.PREPRINT: EntryType("misc", "", "article", "UNPB"),
    Type.BOOK_CHAPTER: EntryType("incollection", "booktitle", "chapter", "CHAP"),
    Type.BOOK: EntryType("book", "", "book", "BOOK"),
    Type.THESIS: EntryType("phdthesis", "", "thesis", "THES"),
    Type.REPORT: EntryType("techreport", "", "report", "RPRT"),
    # CSL's "manuscript" would make APA say "[Unpublished manuscript]", which no source said.
    Type.OTHER: EntryType("misc", "howpublished", "article", "GEN"),
}


def cited_type(publication_type: str, venue: str, arxiv_id: str) -> PublicationType:
    """The publication type a paper is cited as (see the module's docstring)."""
    if publication_type in ENTRY_TYPES:
        return PublicationType(publication_type)
    if venue:
        return Type.CONFERENCE_PAPER
    return Type.PREPRINT if arxiv_id else Type.OTHER


def entry_type(publication_type: str, venue: str, arxiv_id: str) -> EntryType:
    return ENTRY_TYPES[cited_type(publication_type, venue, arxiv_id)]
