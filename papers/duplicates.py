"""Likely duplicate papers, put in the curation queue where a curator can merge them.

Two papers are likely one when their titles are equal once normalised, when their abstracts
open or end with the same DUPLICATE_ABSTRACT_WORDS words, or when their abstracts share
passages: an abstract-only record ("Untitled paper") and the full record of the same paper
often differ in a sentence at each end ("trained/fine-tuned" against "trained and
fine-tuned", a code link added), so neither end matches while most of the text is the same.

Every import and fetch flags the likely duplicates of the papers it added or changed
(papers.importing.pipeline); `flag_duplicate_papers` with no papers named sweeps the whole
catalogue (the flag_duplicate_papers command). Both are one pass over the papers, grouped by
key in a dict: linear in the catalogue, never a comparison of every pair.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator
from itertools import combinations

from django.db import transaction

from papers.models import Paper
from papers.text import title_key

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


class _WordHashes(dict[str, int]):
    """crc32 of each word, computed once per sweep (abstracts repeat their vocabulary)."""

    def __missing__(self, word: str) -> int:
        value = self[word] = zlib.crc32(word.encode())
        return value


def duplicate_keys(title: str, abstract: str, hashes: _WordHashes) -> tuple[list[_Key], set[int]]:
    """What two copies of one paper are likely to share: the title once normalised, the
    abstract's first and last DUPLICATE_ABSTRACT_WORDS words (a revision seldom rewrites both
    ends), and its passages. Kept as hashes: a million abstracts' openings would otherwise be
    held in memory."""
    keys = []
    if key := title_key(title):
        keys.append(("title", zlib.crc32(key.encode())))
    words = title_key(abstract).split() if abstract else []
    passages: set[int] = set()
    if len(words) >= DUPLICATE_ABSTRACT_WORDS:
        keys.append(("opening", zlib.crc32(" ".join(words[:DUPLICATE_ABSTRACT_WORDS]).encode())))
        keys.append(("ending", zlib.crc32(" ".join(words[-DUPLICATE_ABSTRACT_WORDS:]).encode())))
        for start in range(len(words) - PASSAGE_WORDS + 1):
            if hashes[words[start]] % PASSAGE_SAMPLE == 0:
                passage = " ".join(words[start : start + PASSAGE_WORDS])
                passages.add(zlib.crc32(passage.encode()))
    return keys, passages


def _rows(pks: Iterable[int] | None = None) -> Iterator[tuple[int, str, str]]:
    papers = Paper.objects.order_by("pk")
    if pks is None:
        yield from papers.values_list("pk", "title", "abstract").iterator(chunk_size=5_000)
        return
    ordered = sorted(pks)
    for start in range(0, len(ordered), READ_CHUNK):
        chunk = papers.filter(pk__in=ordered[start : start + READ_CHUNK])
        yield from chunk.values_list("pk", "title", "abstract")


def likely_duplicates(among: Collection[int] | None = None) -> dict[int, int]:
    """Each paper found likely to be another, -> the first other it is like. With `among`,
    only the papers like one of those (and those themselves): an import's new and changed
    papers against the whole catalogue."""
    hashes = _WordHashes()
    wanted: set[_Key] | None = None
    wanted_passages: set[int] | None = None
    if among is not None:
        if not among:
            return {}
        # Only keys the named papers have are kept from the sweep: a fetch of ten papers does
        # not hold the catalogue's keys.
        wanted, wanted_passages = set(), set()
        for _, title, abstract in _rows(among):
            keys, passages = duplicate_keys(title, abstract, hashes)
            wanted.update(keys)
            wanted_passages |= passages
    groups: dict[_Key, list[int]] = defaultdict(list)
    by_passage: dict[int, list[int]] = defaultdict(list)
    passage_count: dict[int, int] = {}
    for pk, title, abstract in _rows():
        keys, passages = duplicate_keys(title, abstract, hashes)
        for key in keys:
            if wanted is None or key in wanted:
                groups[key].append(pk)
        if wanted_passages is not None:
            passages &= wanted_passages
        if passages:
            passage_count[pk] = len(passages)
            for passage in passages:
                by_passage[passage].append(pk)

    pairs: list[tuple[int, int]] = []
    for (kind, _), group in groups.items():
        if len(group) < 2 or (kind != "title" and len(group) > DUPLICATE_ABSTRACT_GROUP_MAX):
            continue
        pairs += [(pk, group[1] if pk == group[0] else group[0]) for pk in group]
    shared: Counter[tuple[int, int]] = Counter()
    for group in by_passage.values():
        if 1 < len(group) <= DUPLICATE_ABSTRACT_GROUP_MAX:
            shared.update(combinations(group, 2))
    for (one, other), count in sorted(shared.items()):
        fewer = min(passage_count[one], passage_count[other])
        if count >= max(PASSAGES_SHARED, PASSAGES_SHARE * fewer):
            pairs += [(one, other), (other, one)]
    found: dict[int, int] = {}
    for pk, like in pairs:
        if among is None or pk in among or like in among:
            found.setdefault(pk, like)
    return found


def flag_duplicate_papers(among: Collection[int] | None = None) -> int:
    """Put likely duplicates in the curation queue ("possible duplicate of #<id>"), all of the
    catalogue's or, with `among`, those of these papers; the number flagged."""
    return flag_likely_duplicates(likely_duplicates(among))


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
