"""Likely duplicate papers, put in the curation queue where a curator can merge them.

Two papers are likely one when their titles are equal once normalised, when their abstracts
open or end with the same DUPLICATE_ABSTRACT_WORDS words, or when their abstracts share
passages and one of them is untitled: an abstract-only record ("Untitled paper") and the full
record of the same paper often differ in a sentence at each end ("trained/fine-tuned" against
"trained and fine-tuned", a code link added), so neither end matches while most of the text is
the same. (Passages are compared only with the untitled papers, which are few: keeping every
paper's passages cost 860 MB at 100,000 papers.)

Every import and fetch flags the likely duplicates of the papers it added or changed
(papers.importing.pipeline); `flag_duplicate_papers` with no papers named sweeps the whole
catalogue (the flag_duplicate_papers command). Both are one pass over the papers, grouped by
key in a dict: linear in the catalogue, never a comparison of every pair.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping

from django.db import transaction

from papers.models import Paper

# Curation reasons that start so are about duplicates: merging resolves them.
DUPLICATE_REASON_PREFIX = "possible duplicate of #"
# Abstracts of fewer words than this are not compared: a stock text ("No abstract available.")
# would make every paper carrying it a duplicate of the others. Also the length of the opening
# and of the ending compared.
DUPLICATE_ABSTRACT_WORDS = 30
# More papers than this sharing an abstract's opening, ending or passage: a template, not one
# paper told several times.
DUPLICATE_ABSTRACT_GROUP_MAX = 5
# A passage: this many words from an anchor word, a word whose hash is a multiple of
# PASSAGE_SAMPLE (about one word in 8). Anchors depend on the words alone, so two copies of one
# text pick the same passages wherever the text sits, and an abstract has about 20, not 200.
PASSAGE_WORDS = 6
PASSAGE_SAMPLE = 8
# Two abstracts are one paper told twice when they share at least this many passages, and at
# least a quarter of the passages of the one with fewer. Over the ICLR 2024 corpus with the
# seeds no two different papers do (a few share three of 20 or more); BatchPrompt's
# abstract-only record and its full record share 16 of 36.
PASSAGES_SHARED = 3
PASSAGES_SHARE = 0.25

_Key = tuple[str, int]
# Papers read per query by id (the ones an import changed, the ones flagged).
READ_CHUNK = 500
# Up to this many papers named, their keys are read first and only those are kept from the
# sweep; more (a first import), the sweep keeps every key (three a paper) and reads no paper
# twice: 100,000 papers by id cost more than the sweep itself.
KEYS_READ_FIRST = 10_000


class _WordHashes(dict[str, int]):
    """crc32 of each word, computed once per sweep (abstracts repeat their vocabulary)."""

    def __missing__(self, word: str) -> int:
        value = self[word] = zlib.crc32(word.encode())
        return value


# Words as the keys compare them: letters and digits, case and compatibility forms folded
# (title_key's rule, in one regular expression rather than a loop over every character).
_WORD = re.compile(r"[^\W_]+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")  # the same for ASCII text, several times faster


def _words(text: str) -> list[str]:
    if text.isascii():  # most abstracts: NFKC changes nothing, and lower() is casefold()
        return _ASCII_WORD.findall(text.lower())
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


# Characters read from each end of an abstract for its opening and ending: 30 words fit in
# far fewer. The word cut at the edge is dropped; an end with too few words reads it all.
_END_CHARS = 300


def _end_words(abstract: str) -> tuple[list[str], list[str]]:
    """The abstract's first and last DUPLICATE_ABSTRACT_WORDS words, ([], []) when it has
    fewer; read from its ends, not the whole text (the sweep reads every abstract)."""
    n = DUPLICATE_ABSTRACT_WORDS
    if len(abstract) > 2 * _END_CHARS:
        head = _words(abstract[:_END_CHARS])
        tail = _words(abstract[-_END_CHARS:])
        if len(head) > n and len(tail) > n:  # the (maybe cut) word at each edge left out
            return head[:n], tail[-n:]
    words = _words(abstract)
    return (words[:n], words[-n:]) if len(words) >= n else ([], [])


def duplicate_keys(title: str, abstract: str) -> list[_Key]:
    """What two copies of one paper are likely to share: the title once normalised, and the
    abstract's first and last DUPLICATE_ABSTRACT_WORDS words (a revision seldom rewrites both
    ends). Kept as hashes: a million abstracts' openings would otherwise be held in memory."""
    keys = []
    if title_words := _words(title):
        keys.append(("title", zlib.crc32(" ".join(title_words).encode())))
    opening, ending = _end_words(abstract)
    if opening:
        keys.append(("opening", zlib.crc32(" ".join(opening).encode())))
        keys.append(("ending", zlib.crc32(" ".join(ending).encode())))
    return keys


def passages(abstract: str, hashes: _WordHashes) -> set[int]:
    """The abstract's sampled passages, as hashes (none for a short one)."""
    words = _words(abstract)
    if len(words) < DUPLICATE_ABSTRACT_WORDS:
        return set()
    return {
        zlib.crc32(" ".join(words[start : start + PASSAGE_WORDS]).encode())
        for start in range(len(words) - PASSAGE_WORDS + 1)
        if hashes[words[start]] % PASSAGE_SAMPLE == 0
    }


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

    def __init__(self, hashes: _WordHashes):
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
    hashes = _WordHashes()
    wanted: set[_Key] | None = None
    if among is not None and not among:
        return {}
    if among is not None and len(among) <= KEYS_READ_FIRST:
        # Only keys the named papers have are kept from the sweep: a fetch of ten papers does
        # not hold the catalogue's keys.
        wanted = {
            key for _, title, abstract in _rows(among) for key in duplicate_keys(title, abstract)
        }
    untitled = _Untitled(hashes)
    # Every titled paper is compared with the untitled ones when one of these is named (or
    # none is: a sweep); else only the named titled papers are.
    every_titled = among is None or not untitled.count.keys().isdisjoint(among)
    named = among or ()
    groups: dict[_Key, list[int]] = defaultdict(list)
    pairs: list[tuple[int, int]] = []
    for pk, title, abstract in _rows():
        for key in duplicate_keys(title, abstract):
            if wanted is None or key in wanted:
                groups[key].append(pk)
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
