"""What an import cleans in a record rather than refusing its file: real data, not a member's
typing (forms and model validators stay strict).

- Invisible format characters (bidirectional controls, zero-width characters: Unicode category
  Cf) are removed from author names, titles, keywords and tags; an abstract loses the ones
  that would reorder the text after it (embeddings, overrides, isolates).
- A keyword holding several keywords ("Tensor Rematerialization; Gradient Checkpointing") is
  split on its semicolons.
- A value still over its limit is cut at a word boundary (an ellipsis marks the cut); a list
  over its limit keeps its first items.
- A value whose LaTeX the converter fails on (pylatexenc raises on `\\href{a}{b}`,
  `\\sqrt`, `\\verb`, ...) is kept as written, its control characters as spaces (converted):
  one author's name from upstream never costs its record, nor a fetch its run.

Each cleaning is a note ("title: cut to 500 characters ..."), which the pipeline reports with
the record's file and line. Nothing here reads the database.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Protocol

from papers.importing.latex_text import NestedTooDeep
from papers.tags.identity import stored_length
from papers.text import (
    MAX_ABSTRACT,
    MAX_AUTHOR_LIST,
    MAX_AUTHOR_NAME,
    MAX_AUTHORS_PER_PAPER,
    MAX_TAG_NAME,
    MAX_TAGS_PER_PAPER,
    MAX_TITLE,
    cut_at_word,
    has_visible_character,
    normalize_author_name,
    without_control_characters,
)


class CleanableRecord(Protocol):
    """What cleaning reads and writes of a record (papers.importing.records.PaperRecord): a
    protocol, so that this module, which records imports, needs nothing of it (no import
    loop, not even one only a type checker reads)."""

    title: str
    abstract: str
    authors: list[str]
    author_ids: list[str]
    tags: list[str]
    keywords: list[str]
    primary_area: str


# Embeddings, overrides and isolates: an abstract may hold right-to-left text and its marks.
_REORDERING = re.compile("[\u202a-\u202e\u2066-\u2069]")


# The marks that belong to right-to-left writing: a title may keep them (names and tags may not).
RTL_MARKS = frozenset("\u061c\u200e\u200f")


def without_invisible(text: str, keep: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    """`text` without its format characters (category Cf) but `keep`, and the ones removed."""
    if text.isascii():  # most values: nothing to look for
        return text, []
    removed = [char for char in text if unicodedata.category(char) == "Cf" and char not in keep]
    if not removed:
        return text, []
    # A zero-width space separates words, as a space would.
    kept = "".join(
        " " if char == "\u200b" else char
        for char in text
        if char == "\u200b" or char not in removed
    )
    return " ".join(kept.split()), removed


def converted(value: str, convert: Callable[[str], str], label: str, notes: list[str]) -> str:
    """`convert(value)`; or, when the converter fails on `value`, `value` as written without
    its control characters, noted in `notes` (once: a fetched record is validated twice, by the
    fetch and by the import). LaTeX nested past latex_text.MAX_NESTING is a limit, raised for
    the caller to refuse."""
    try:
        return convert(value)
    except NestedTooDeep:
        raise
    except Exception as error:  # pylatexenc raises IndexError, KeyError, ... on some macros
        note = (
            f"{label} {_quote(value)}: kept as written, its LaTeX could not be converted "
            f"({type(error).__name__})"
        )
        if note not in notes:
            notes.append(note)
        return without_control_characters(value)


def clean_record(record: CleanableRecord) -> list[str]:
    """Clean `record` in place; the notes saying what was cleaned, in field order."""
    notes: list[str] = []
    record.title = _clean_text(record.title, "title", MAX_TITLE, notes, keep=RTL_MARKS)
    abstract = _REORDERING.sub("", record.abstract)
    if abstract != record.abstract:
        notes.append(
            f"abstract: removed {len(record.abstract) - len(abstract)} bidirectional "
            "control character(s)"
        )
    record.abstract = _cut(abstract, "abstract", MAX_ABSTRACT, notes)
    _clean_authors(record, notes)
    record.keywords = _clean_names(_split_keywords(record.keywords, notes), "keyword", notes)
    record.tags = _clean_names(record.tags, "tag", notes)
    if record.primary_area:
        area = _clean_names([record.primary_area], "primary area", notes)
        record.primary_area = area[0] if area else ""
    return notes


def _clean_text(
    text: str, label: str, limit: int, notes: list[str], measure=len, keep=frozenset()
) -> str:
    cleaned, removed = without_invisible(text, keep)
    if removed:
        notes.append(f"{label} {_quote(cleaned)}: removed invisible character(s) {_codes(removed)}")
    return _cut(cleaned, label, limit, notes, measure)


def _cut(text: str, label: str, limit: int, notes: list[str], measure=len) -> str:
    cut = cut_at_word(text, limit, measure)
    if cut != text:
        notes.append(
            f"{label} {_quote(text)} is {measure(text)} characters long: cut at a word boundary "
            f"to {measure(cut)} (at most {limit})"
        )
    return cut


def _clean_authors(record: CleanableRecord, notes: list[str]) -> None:
    names = []
    for name in record.authors:
        # The normalised key is stored too, in a column of the same size.
        cleaned = _clean_text(name, "author name", MAX_AUTHOR_NAME, notes, _author_length)
        names.append(cleaned)
    ids = record.author_ids if len(record.author_ids) == len(names) else [""] * len(names)
    shown = [i for i, name in enumerate(names) if has_visible_character(name)]
    if len(shown) < len(names):
        left_out = [_quote(name) for i, name in enumerate(names) if i not in set(shown)]
        notes.append(f"author name(s) {', '.join(left_out)} show nothing: left out")
        names, ids = [names[i] for i in shown], [ids[i] for i in shown]
    if len(names) > MAX_AUTHORS_PER_PAPER:
        notes.append(f"{len(names)} authors: kept the first {MAX_AUTHORS_PER_PAPER}")
        names = names[:MAX_AUTHORS_PER_PAPER]
    joined = 0
    for count, name in enumerate(names):
        joined += len(name) + (2 if count else 0)
        if joined > MAX_AUTHOR_LIST:
            notes.append(
                f"the author list is over {MAX_AUTHOR_LIST} characters: kept the first {count}"
            )
            names = names[:count]
            break
    record.authors = names
    record.author_ids = ids[: len(names)] if any(ids) else []


def _author_length(name: str) -> int:
    return max(len(name.strip()), len(normalize_author_name(name)))


def _split_keywords(keywords: list[str], notes: list[str]) -> list[str]:
    result = []
    for keyword in keywords:
        if ";" not in keyword:
            result.append(keyword)
            continue
        parts = [part.strip() for part in keyword.split(";") if part.strip()]
        notes.append(f"keyword {_quote(keyword)} split into {len(parts)} keywords")
        result.extend(parts)
    return result


def _clean_names(names: list[str], label: str, notes: list[str]) -> list[str]:
    """Tags, keywords or an area: invisible characters out, each cut to what its stored forms
    (the display name and the key) allow; the first MAX_TAGS_PER_PAPER kept."""
    cleaned = []
    for name in names:
        name = _clean_text(name, label, MAX_TAG_NAME, notes, stored_length)
        if has_visible_character(name):
            cleaned.append(name)
        elif name.strip():
            notes.append(f"{label} {_quote(name)} shows nothing: left out")
    if len(cleaned) > MAX_TAGS_PER_PAPER:
        notes.append(f"{len(cleaned)} {label}s: kept the first {MAX_TAGS_PER_PAPER}")
        cleaned = cleaned[:MAX_TAGS_PER_PAPER]
    return cleaned


def _codes(chars: list[str]) -> str:
    return ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(chars))


def _quote(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
