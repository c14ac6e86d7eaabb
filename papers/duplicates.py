"""Likely duplicate papers, put in the curation queue where a curator can merge them.

Two papers are likely one when their titles are equal once normalised, when their abstracts
open or end with the same DUPLICATE_ABSTRACT_WORDS words, or when their abstracts share
passages and one of them is untitled: an abstract-only record ("Untitled paper") and the full
record of the same paper often differ in a sentence at each end ("trained/fine-tuned" against
"trained and fine-tuned", a code link added), so neither end matches while most of the text is
the same. (Passages are compared only with the untitled papers, which are few: keeping every
paper's passages cost 860 MB at 100,000 papers.)

Every import and fetch flags the likely duplicates of the papers it added or changed, once it
has committed (papers.importing.pipeline): the papers sharing one of their keys are found by
the keys each paper keeps (papers.duplicate_keys, indexed), so the catalogue is not read; only
an untitled paper among them has every titled abstract read, for passages. `flag_duplicate_papers`
with no papers named (the flag_duplicate_papers command), or with more than KEYS_READ_FIRST,
sweeps the whole catalogue: one pass over the papers, grouped by key in a dict, linear in the
catalogue, never a comparison of every pair.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping

from django.db import transaction

from papers.duplicate_keys import (
    KEY_COLUMNS,
    Key,
    WordHashes,
    duplicate_keys,
    passages,
)
from papers.models import Paper

# Curation reasons that start so are about duplicates: merging resolves them.
DUPLICATE_REASON_PREFIX = "possible duplicate of #"
# More papers than this sharing an abstract's opening, ending or passage: a template, not one
# paper told several times.
DUPLICATE_ABSTRACT_GROUP_MAX = 5
# Two abstracts are one paper told twice when they share at least this many passages, and at
# least a quarter of the passages of the one with fewer. Over the ICLR 2024 corpus with the
# seeds no two different papers do (a few share three of 20 or more); BatchPrompt's
# abstract-only record and its full record share 16 of 36.
PASSAGES_SHARED = 3
PASSAGES_SHARE = 0.25

# Papers read per query by id (the ones an import changed, the ones flagged).
READ_CHUNK = 500
# Up to this many papers named, the papers sharing their keys are found by the keys every paper
# keeps; more (a first import), every paper is read and grouped by key (three a paper): 100,000
# papers read by id cost more than one pass over the catalogue.
KEYS_READ_FIRST = 10_000


def _rows(pks: Iterable[int] | None = None, **where) -> Iterator[tuple[int, str, str]]:
    papers = Paper.objects.filter(**where).order_by("pk")
    if pks is None:
        yield from papers.values_list("pk", "title", "abstract").iterator(chunk_size=5_000)
        return
    ordered = sorted(pks)
    for start in range(0, len(ordered), READ_CHUNK):
        chunk = papers.filter(pk__in=ordered[start : start + READ_CHUNK])
        yield from chunk.values_list("pk", "title", "abstract")


class _Untitled:
    """The passages of the untitled papers (abstract-only records, few), which every titled
    paper's passages are compared with: only such a pair is judged by passages, so no titled
    paper's passages are kept."""

    def __init__(self, hashes: WordHashes):
        self.hashes = hashes
        self.by_passage: dict[int, list[int]] = defaultdict(list)
        self.count: dict[int, int] = {}
        for pk, _, abstract in _rows(title=""):  # query: the untitled papers
            found = passages(abstract, hashes)
            if found:
                self.count[pk] = len(found)
                for passage in found:
                    self.by_passage[passage].append(pk)

    def like(self, pk: int, abstract: str) -> Iterator[int]:
        """The untitled papers whose abstracts share enough passages with this one's."""
        found = passages(abstract, self.hashes)
        shared: Counter[int] = Counter()
        for passage in found:
            group = self.by_passage.get(passage, ())
            if len(group) <= DUPLICATE_ABSTRACT_GROUP_MAX:  # more: a template
                shared.update(other for other in group if other != pk)
        for other, count in shared.items():
            fewer = min(len(found), self.count[other])
            if count >= max(PASSAGES_SHARED, PASSAGES_SHARE * fewer):
                yield other


def likely_duplicates(among: Collection[int] | None = None) -> dict[int, int]:
    """Each paper found likely to be another, -> the first other it is like. With `among`,
    only the papers like one of those (and those themselves): an import's new and changed
    papers against the whole catalogue."""
    if among is not None and not among:
        return {}
    untitled = _Untitled(WordHashes())
    # Every titled paper is compared with the untitled ones when one of these is named (or
    # none is: a sweep); else only the named titled papers are.
    every_titled = among is None or not untitled.count.keys().isdisjoint(among)
    named = among or ()
    groups: dict[Key, list[int]] = defaultdict(list)
    compared: Iterable[tuple[int, str, str]]
    if among is not None and len(among) <= KEYS_READ_FIRST:
        named_rows = list(_rows(among))  # query: the named papers
        groups.update(_papers_sharing_keys(named_rows))
        compared = _rows(title__gt="") if every_titled and untitled.count else named_rows
    else:
        compared = _grouped(_rows(), groups)
    pairs: list[tuple[int, int]] = []
    for pk, title, abstract in compared:
        if title and untitled.count and (every_titled or pk in named):
            for other in untitled.like(pk, abstract):
                pairs += [(pk, other), (other, pk)]

    for (kind, _), group in groups.items():
        if len(group) < 2 or (kind != "title" and len(group) > DUPLICATE_ABSTRACT_GROUP_MAX):
            continue
        pairs += [(pk, group[1] if pk == group[0] else group[0]) for pk in group]
    found: dict[int, int] = {}
    for pk, like in sorted(pairs):
        if among is None or pk in among or like in among:
            found.setdefault(pk, like)
    return found


def _grouped(
    rows: Iterable[tuple[int, str, str]], groups: dict[Key, list[int]]
) -> Iterator[tuple[int, str, str]]:
    """The rows as they are read, each paper put in the group of each of its keys."""
    for row in rows:
        for key in duplicate_keys(row[1], row[2]):
            groups[key].append(row[0])
        yield row


def _papers_sharing_keys(rows: list[tuple[int, str, str]]) -> dict[Key, list[int]]:
    """Each key of these papers -> the papers that have it, these included, in id order: found
    by the keys every paper keeps (Paper.duplicate_title_key and the others), not by reading
    every paper."""
    groups: dict[Key, set[int]] = defaultdict(set)
    wanted: dict[str, set[int]] = defaultdict(set)
    for pk, title, abstract in rows:
        for kind, value in duplicate_keys(title, abstract):
            wanted[kind].add(value)
            groups[(kind, value)].add(pk)
    for kind, values in wanted.items():
        column = KEY_COLUMNS[kind]
        ordered = sorted(values)
        for start in range(0, len(ordered), READ_CHUNK):
            chunk = ordered[start : start + READ_CHUNK]
            # query: the papers that have one of these keys (an index on each kind of key)
            sharing = Paper.objects.filter(**{f"{column}__in": chunk}).order_by()
            for pk, value in sharing.values_list("pk", column):
                groups[(kind, value)].add(pk)
    return {key: sorted(pks) for key, pks in groups.items()}


def flag_duplicate_papers(
    among: Collection[int] | None = None, *, twins: Mapping[int, int] | None = None
) -> int:
    """Put likely duplicates in the curation queue ("possible duplicate of #<id>"), all of the
    catalogue's or, with `among`, those of these papers; the number flagged. `twins` (paper
    -> the paper it is like) are known to be alike already: an import's new papers that share
    an abstract with a paper they were kept apart from, whatever the abstract's length."""
    return flag_likely_duplicates({**likely_duplicates(among), **(twins or {})})


@transaction.atomic
def flag_likely_duplicates(found: dict[int, int]) -> int:
    """Flag the papers of `found` (likely_duplicates): each as a possible duplicate of its
    other. A paper already in the queue keeps its own reason, and one a curator reviewed stays
    out unless a paper like it arrived after the review."""
    if not found:
        return 0
    state: dict[int, tuple] = {}
    ids = sorted(set(found) | set(found.values()))
    for start in range(0, len(ids), READ_CHUNK):
        rows = Paper.objects.filter(pk__in=ids[start : start + READ_CHUNK]).values_list(
            "pk", "created_at", "needs_curation", "reviewed_at"
        )
        state.update((pk, tuple(rest)) for pk, *rest in rows)
    flagged = []
    for pk, like in found.items():
        created_at, needs_curation, reviewed_at = state[pk]
        newest = max(created_at, state[like][0])
        if needs_curation or (reviewed_at is not None and reviewed_at >= newest):
            continue
        reason = f"{DUPLICATE_REASON_PREFIX}{like}"
        flagged.append(Paper(pk=pk, needs_curation=True, curation_reason=reason))
    Paper.objects.bulk_update(flagged, ["needs_curation", "curation_reason"], batch_size=500)
    return len(flagged)
