"""Which paper each record of a batch is: by forum id, then arXiv id, then DOI, then abstract
fingerprint, with the rules that keep two different papers apart (the loader's module docstring
says them). Each record becomes a Match; the papers found, and the ones to create, Targets."""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db.models import Q

from papers.importing.authors import (
    Person,
    people_of,
)
from papers.importing.bulk_rows import (
    chunks,
)
from papers.importing.records import PaperRecord
from papers.importing.sources import (
    record_digest,
    record_key,
    supplied_values,
)
from papers.importing.tags import classify_tags, topic_tags
from papers.models import (
    Paper,
)
from papers.querysets import identifier_in
from papers.tags.identity import tag_key
from papers.text import abstract_fingerprint

# What a record is matched by, strongest first.
IDENTITIES = ("forum_id", "arxiv_id", "doi", "abstract_fingerprint")
# arXiv's own DOIs ("10.48550/arXiv.2305.18290"), lower case as records hold DOIs.
ARXIV_DOI_PREFIX = "10.48550/arxiv."
# Unique among papers: two papers with different forum ids (or arXiv ids) are never one paper,
# and a paper takes a record's value when it has none.
CLAIMED_IDENTITIES = ("forum_id", "arxiv_id")
# What MergedPaper remembers of a paper merged into another.
MERGED_IDENTITIES = ("forum_id", "abstract_fingerprint")
# Paper fields the search index holds (with the authors and tags): changing one is recorded.


@dataclass
class Target:
    """A paper some record in the batch maps to, with the state merging needs."""

    paper: Paper
    is_new: bool
    # Its authors in order, and imported tags: an existing paper's are read from the database
    # once (loaded), a new paper has none.
    authors: list[Person] = field(default_factory=list)
    tag_keys: set[tuple[str, str]] = field(default_factory=set)
    loaded: bool = False
    new_tags: list[tuple[str, str]] = field(default_factory=list)
    # Imported tags a record replaces (tags.superseded_tags), as (kind, name).
    dropped_tags: list[tuple[str, str]] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)
    authors_changed: bool = False

    @property
    def tags_changed(self) -> bool:
        return bool(self.new_tags or self.dropped_tags)


class Base(NamedTuple):
    """The SourceRecord of what the record's source supplied last time."""

    pk: int
    digest: str
    fields: dict[str, str]


@dataclass
class Match:
    record: PaperRecord
    fingerprint: str
    source: str
    key: str
    authors: list[Person]
    tags: list[tuple[str, str]]
    supplied: dict[str, str]
    digest: str
    base: Base | None = None
    target: Target = field(init=False)  # set by _find_papers
    created: bool = False
    # Identities the record gave a paper that had none (CLAIMED_IDENTITIES).
    claimed: list[str] = field(default_factory=list)
    # A paper whose abstract the record shares but which its own identifiers keep it from
    # being (_known_by_abstract): flagged as a possible duplicate of the record's new paper.
    abstract_twin: Paper | None = None

    @property
    def forum_id(self) -> str:
        return self.record.forum_id

    @property
    def arxiv_id(self) -> str:
        return self.record.arxiv_id

    @property
    def doi(self) -> str:
        return self.record.doi

    @property
    def abstract_fingerprint(self) -> str:
        return self.fingerprint


class PaperIndex:
    """The batch's papers by each identity value, for matching its records in order."""

    def __init__(self, targets: list[Target]):
        self.by: dict[str, dict[str, list[Target]]] = {name: {} for name in IDENTITIES}
        for target in targets:
            self.add_paper(target)

    def add(self, name: str, value: str, target: Target) -> None:
        if value:
            listed = self.by[name].setdefault(value, [])
            if target not in listed:
                listed.append(target)

    def add_paper(self, target: Target) -> None:
        for name in IDENTITIES:
            self.add(name, getattr(target.paper, name), target)

    def taken(self, name: str, value: str) -> bool:
        return bool(self.by[name].get(value))

    def match(self, match: Match) -> Target | None:
        """The paper the record is, or None for a new one (match.abstract_twin then names the
        paper it shares its abstract with, if its identifiers alone kept them apart)."""
        for name in IDENTITIES:
            value = getattr(match, name)
            for candidate in self.by[name].get(value, []) if value else []:
                paper = candidate.paper
                # The forum id is the strongest identity: its paper is the one, whatever else.
                if name == "forum_id":
                    return candidate
                if not _compatible(match, paper):
                    continue
                if name != "abstract_fingerprint":
                    return candidate
                if not _same_doi(match, paper):
                    continue
                if _known_by_abstract(match, paper):
                    return candidate
                match.abstract_twin = match.abstract_twin or paper
        return None


def _compatible(match: Match, paper: Paper) -> bool:
    """Whether record and paper could be one paper: no unique identity differs."""
    for name in CLAIMED_IDENTITIES:
        ours, theirs = getattr(match, name), getattr(paper, name)
        if ours and theirs and ours != theirs:
            return False
    return True


def _same_doi(match: Match, paper: Paper) -> bool:
    """Whether an abstract may make record and paper one paper as far as their DOIs go.

    Exporters give papers they have no abstract for a stock text ("No abstract available."),
    so an abstract alone must not join two records that name different publications. An
    arXiv DOI is left out: it names the preprint of a paper whose published version has a
    DOI of its own, and the arXiv id it gives is compared by _compatible.
    """
    ours, theirs = _publisher_doi(match.doi), _publisher_doi(paper.doi)
    return not (ours and theirs and ours != theirs)


def _known_by_abstract(match: Match, paper: Paper) -> bool:
    """Whether the abstract may make record and paper one paper, given that none of their
    identifiers differ (_compatible, _same_doi): when the record names no paper of its own
    that this one is not, or this paper is only an abstract.

    An abstract is public text: anyone can put a catalogue paper's into a record of their own
    (a preprint, an OpenReview note, a DOI registered at Zenodo) that one member's lookup then
    brings. Such a record has a forum id, arXiv id or DOI the paper lacks; merged, it would
    replace the paper's title, PDF link, year and authors. It becomes a paper of its own, a
    possible duplicate for a curator. A paper that is only an abstract (an abstract-only seed,
    fixtures/001_*) has nothing such a record could replace: a full record completes it.
    """
    own_id = any(
        getattr(match, name) not in ("", getattr(paper, name)) for name in CLAIMED_IDENTITIES
    )
    doi = match.doi.lower()
    own_doi = doi not in ("", paper.doi.lower(), ARXIV_DOI_PREFIX + paper.arxiv_id.lower())
    return not (own_id or own_doi) or _only_an_abstract(paper)


# What a paper that is only an abstract (an abstract-only seed's record) has none of.
NOT_IN_AN_ABSTRACT_ONLY_PAPER = (
    "title",
    "author_names",
    "year",
    "pdf_url",
    "forum_id",
    "forum_url",
    "arxiv_id",
    "doi",
)


def _only_an_abstract(paper: Paper) -> bool:
    return not any(getattr(paper, name) for name in NOT_IN_AN_ABSTRACT_ONLY_PAPER)


# Records per query for papers sharing their abstracts: each adds an OR term, and SQLite
# parses a chain of ORs to a tree as deep as it is long (at most 1,000).
ABSTRACT_CHUNK = 100


def papers_sharing_an_abstract(matches: list[Match]) -> Iterator[tuple[int, Paper]]:
    """(id, paper) of the papers each match could be by its abstract: same fingerprint, and no
    forum id, arXiv id or publisher DOI that differs from the record's (PaperIndex.match's rules;
    it then tells those the record is from those it is only a possible duplicate of).

    Only those are read: exporters give many papers one stock abstract, and reading every
    paper holding it for each record made a file of them quadratic (1,000 records: 3 minutes).
    """
    # First which of the fingerprints any paper has at all: a new catalogue's records mostly
    # bring new abstracts, and Django spent a fifth of a first import building their ORs.
    known: set[str] = set()
    for chunk in chunks({m.fingerprint for m in matches} - {""}):
        # query: fingerprints some paper has
        papers = Paper.objects.filter(identifier_in("abstract_fingerprint", chunk)).order_by()
        known.update(papers.values_list("abstract_fingerprint", flat=True).distinct())
    with_abstract = [m for m in matches if m.fingerprint in known]
    for start in range(0, len(with_abstract), ABSTRACT_CHUNK):
        chunk = with_abstract[start : start + ABSTRACT_CHUNK]
        could_be = [_could_be_by_abstract(m) for m in chunk]
        fingerprints = {m.fingerprint for m in chunk}
        # query: papers sharing an abstract with these records that could be them
        query = identifier_in("abstract_fingerprint", fingerprints) & functools.reduce(
            operator.or_, could_be
        )
        yield from ((p.pk, p) for p in Paper.objects.filter(query))


def _could_be_by_abstract(match: Match) -> Q:
    condition = Q(abstract_fingerprint=match.fingerprint)
    for name in CLAIMED_IDENTITIES:
        if value := getattr(match, name):
            condition &= Q(**{name: ""}) | Q(**{name: value})
    if doi := _publisher_doi(match.doi):
        condition &= Q(doi="") | Q(doi=doi) | Q(doi__startswith=ARXIV_DOI_PREFIX)
    return condition


def _publisher_doi(doi: str) -> str:
    return "" if doi.lower().startswith(ARXIV_DOI_PREFIX) else doi


def match_for(record: PaperRecord, fingerprint: str, source: str) -> Match:
    authors = people_of(record)
    tags = classify_tags(record.tags) + topic_tags(record.keywords, record.primary_area)
    tag_keys = {(kind, tag_key(name)) for kind, name in tags}
    supplied = supplied_values(
        record,
        fingerprint,
        [person.key for person in authors],
        tag_keys,
        [person.profile for person in authors],
    )
    return Match(
        record=record,
        fingerprint=fingerprint,
        source=source,
        key=record_key(record, fingerprint),
        authors=authors,
        tags=tags,
        supplied=supplied,
        digest=record_digest(record, supplied),
    )


def batches(
    records: Iterable[PaperRecord], size: int
) -> Iterator[tuple[list[PaperRecord], list[str]]]:
    """Consecutive batches of at most `size` records (with their abstracts' fingerprints), a
    new one started wherever a record names a paper (by forum id or abstract) that its batch
    already holds: the later record then finds the paper as the earlier one left it, exactly
    as in a later import."""
    batch: list[PaperRecord] = []
    fingerprints: list[str] = []
    seen: set[str] = set()
    for record in records:
        # No abstract, no fingerprint: abstract-less papers are known by their ids alone.
        fingerprint = abstract_fingerprint(record.abstract) if record.abstract else ""
        keys = {
            f"{name}:{value}"
            for name, value in (
                ("fp", fingerprint),
                ("id", record.forum_id),
                ("arxiv", record.arxiv_id),
                ("doi", record.doi),
            )
            if value
        }
        if len(batch) == size or not seen.isdisjoint(keys):
            yield batch, fingerprints
            batch, fingerprints, seen = [], [], set()
        batch.append(record)
        fingerprints.append(fingerprint)
        seen |= keys
    if batch:
        yield batch, fingerprints
