"""What two copies of one paper are likely to share, as numbers: the keys of a title and of an
abstract's two ends, and an abstract's sampled passages (papers.duplicates says how they are
used). No database here: each paper keeps its keys (Paper.duplicate_title_key and the others,
set on every save and by the loader), so that an import's papers are compared with the
catalogue by index rather than by reading every abstract."""

from __future__ import annotations

import re
import unicodedata
import zlib
from typing import Any

# Abstracts of fewer words than this are not compared: a stock text ("No abstract available.")
# would make every paper carrying it a duplicate of the others. Also the length of the opening
# and of the ending compared.
DUPLICATE_ABSTRACT_WORDS = 30
# A passage: this many words from an anchor word, a word whose hash is a multiple of
# PASSAGE_SAMPLE (about one word in 8). Anchors depend on the words alone, so two copies of one
# text pick the same passages wherever the text sits, and an abstract has about 20, not 200.
PASSAGE_WORDS = 6
PASSAGE_SAMPLE = 8
Key = tuple[str, int]
# The column of Paper that keeps each kind of key.
KEY_COLUMNS = {
    "title": "duplicate_title_key",
    "opening": "duplicate_opening_key",
    "ending": "duplicate_ending_key",
}


class WordHashes(dict[str, int]):
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


def duplicate_keys(title: str, abstract: str) -> list[Key]:
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


def passages(abstract: str, hashes: WordHashes) -> set[int]:
    """The abstract's sampled passages, as hashes (none for a short one)."""
    words = _words(abstract)
    if len(words) < DUPLICATE_ABSTRACT_WORDS:
        return set()
    return {
        zlib.crc32(" ".join(words[start : start + PASSAGE_WORDS]).encode())
        for start in range(len(words) - PASSAGE_WORDS + 1)
        if hashes[words[start]] % PASSAGE_SAMPLE == 0
    }


def stored_keys(title: str, abstract: str) -> dict[str, int | None]:
    """The paper's keys by column of Paper (None where it has none: no title, a short abstract)."""
    found = dict(duplicate_keys(title, abstract))
    return {column: found.get(kind) for kind, column in KEY_COLUMNS.items()}


def set_duplicate_keys(paper: Any) -> None:
    """Set a Paper's keys (duplicate_title_key and the others) from its title and abstract:
    on every save of one, and by the loader for the papers it writes."""
    for column, value in stored_keys(paper.title, paper.abstract).items():
        setattr(paper, column, value)
