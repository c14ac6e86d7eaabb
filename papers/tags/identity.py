"""A tag's identity rules: pure functions of its name, no database (papers.tags).

A tag is (kind, key): "RL", "rl " and "Rl" are one keyword. The name, the key and the slug are
stored in columns of MAX_TAG_NAME characters; NFKC and case folding can lengthen a name
("ß" folds to "ss", U+FDFA becomes 18 characters), so the key is checked after folding, in
Python, before anything is written: SQLite would store an over-long value that PostgreSQL
refuses, and one database must not take what the other turns down.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.utils.text import slugify

from papers.text import (
    MAX_TAG_NAME,
    collapse_whitespace,
    cut_at_word,
    has_bidi_control,
    has_visible_character,
    without_latin_accents,
)

# Tag.key, Tag.slug, TagAlias.key and TagAlias.slug are columns of this many characters.
MAX_TAG_KEY = MAX_TAG_NAME
# A slug's base is cut here, leaving room for the "-2", "-3", ... of a taken one.
_SLUG_BASE = 80
# A slug as URLs carry it: what the list page's facet parameters accept.
_SLUG_SHAPE = re.compile(r"^[-\w]{1,100}$")
_HASHED_PREFIX = "tag-"
# The same names come back in record after record of an import: each is normalised once.
# Pure functions of a string, so the caches never hold a stale answer.
_NORMALISED = functools.lru_cache(maxsize=1 << 16)


class TagNameRefused(ValueError):
    """A tag name that cannot be stored (its problem as the message)."""


@_NORMALISED
def normalize_tag_name(name: str) -> str:
    """Display form of a tag: NFKC, single spaces, trimmed ("  RL " -> "RL")."""
    return collapse_whitespace(unicodedata.normalize("NFKC", name))


@_NORMALISED
def tag_key(name: str) -> str:
    """Identity of a tag within its kind: "RL", "rl " and "Rl" share one key."""
    return normalize_tag_name(name).casefold()


def tag_search_key(name: str) -> str:
    """tag_key without accents on Latin letters: what the "find a keyword" box compares, so
    "schrodinger" finds "Schrödinger bridge" (as fold_author_name does for authors)."""
    return without_latin_accents(tag_key(name)).casefold()


def tag_slug(name: str) -> str:
    """The URL slug of a tag's name, never empty: a name with nothing slugify keeps (emoji,
    punctuation: "🚀", "?!") gets "tag-" and a hash of its key, stable and distinct per key."""
    key = tag_key(name)
    slug = slugify(key, allow_unicode=True)[:_SLUG_BASE]
    if not slug:
        slug = _HASHED_PREFIX + hashlib.sha256(key.encode()).hexdigest()[:12]
    return slug


def looks_like_slug(raw: str) -> bool:
    """Whether `raw` could be a tag's slug (a URL parameter is checked before any query)."""
    return bool(_SLUG_SHAPE.match(raw))


def stored_length(name: str) -> int:
    """The longest of the forms of `name` a tag stores (as given, displayed, key): what must
    fit MAX_TAG_NAME."""
    return max(len(name), len(normalize_tag_name(name)), len(tag_key(name)))


def cut_to_fit(name: str) -> str:
    """`name` cut at a word boundary until its stored forms fit their columns, as the importer
    cuts a tag (papers.importing.cleaning): for a name no curator wrote, a decision from
    reviews say. Python does the cut, so it is the same on every database."""
    return normalize_tag_name(cut_at_word(name, MAX_TAG_NAME, stored_length))


@_NORMALISED
def tag_name_problem(name: str) -> str:
    """Why `name` cannot name a tag, or "" when it can. Checked on the normalised name, the
    form it is stored in (NFKC can lengthen text: U+FDFA becomes 18 characters)."""
    name = normalize_tag_name(name)
    if has_bidi_control(name):
        return "A tag cannot contain bidirectional control characters (they reorder its text)."
    if not has_visible_character(name):
        return "A tag needs at least one visible character."
    if stored_length(name) > MAX_TAG_NAME:
        return f"A tag is at most {MAX_TAG_NAME} characters long."
    return ""


@dataclass(frozen=True)
class TagIdentity:
    """The stored forms of one tag name."""

    name: str  # as shown
    key: str
    search_key: str
    spelling_key: str  # what its spelling variants share (spelling_key)
    slug: str  # the base slug: a taken one is numbered (number_slugs)


def identify(name: str) -> TagIdentity:
    """The stored forms of `name`; TagNameRefused when they do not fit their columns. Only the
    limit is enforced here (forms check the other rules first, with their messages): a row
    written by any path, a shell included, fits on PostgreSQL exactly when it fits on SQLite."""
    display = normalize_tag_name(name)  # what is stored: spaces trimmed away do not count
    if stored_length(display) > MAX_TAG_NAME:
        raise TagNameRefused(
            f"A tag is at most {MAX_TAG_NAME} characters long, its key (NFKC, case-folded) "
            f"too: {display[:40]!r}... has {stored_length(display)}."
        )
    return TagIdentity(
        name=display,
        key=tag_key(display),
        search_key=tag_search_key(display),
        spelling_key=spelling_key(display),
        slug=tag_slug(display),
    )


def number_slugs(
    missing: dict[tuple[str, str], str],
    taken: Callable[[list[tuple[str, str]]], Iterable[tuple[str, str]]],
) -> dict[tuple[str, str], str]:
    """A slug for each new tag ((kind, key) -> name), unique within its kind among stored and
    new tags; `taken` answers which of some (kind, slug) pairs are stored.

    Different keys can share a slug ("ICLR 2024" / "ICLR 2024!"); the later ones, in key order,
    get "-2", "-3", ... Candidates are asked about in bulk, a window per base slug that doubles
    each round, so many tags on one base, or a stored "iclr-2024-2", cost a few queries rather
    than one per tag or a quadratic search.
    """
    pending: dict[tuple[str, str], deque[tuple[str, str]]] = {}
    for (kind, key), name in sorted(missing.items()):
        pending.setdefault((kind, tag_slug(name)), deque()).append((kind, key))
    result: dict[tuple[str, str], str] = {}
    used: set[tuple[str, str]] = set()
    next_number = dict.fromkeys(pending, 1)
    window = 1
    while pending:
        proposals: dict[tuple[str, str], tuple[str, str]] = {}
        for group, members in pending.items():
            kind, base = group
            first = next_number[group]
            next_number[group] = first + max(len(members), window)
            for number in range(first, next_number[group]):
                slug = base if number == 1 else f"{base}-{number}"
                if (kind, slug) not in used:
                    proposals.setdefault((kind, slug), group)
        stored = set(taken(list(proposals)))
        for candidate, group in proposals.items():
            members = pending[group]
            if members and candidate not in stored:
                result[members.popleft()] = candidate[1]
                used.add(candidate)
        pending = {group: members for group, members in pending.items() if members}
        window *= 2
    return result


_SPELLING_SEPARATORS = re.compile(r"[\s\-_/]+")
_PLURAL_ENDINGS = (("sses", "ss"), ("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"))
_NOT_PLURAL_ENDINGS = ("ss", "us", "is")


def spelling_key(name: str) -> str:
    """What spellings of one tag share: its key with hyphens and underscores read as spaces
    and the last word in the singular ("Large Language Models", "large-language model" and
    "LLMs"/"LLM" pair up). A hint for curators (papers.tags.variants), never an identity:
    "dynamics" is not always "dynamic". Stored as Tag.spelling_key, so a change to these rules
    needs a migration that fills the column again (as 0031 did)."""
    words = _SPELLING_SEPARATORS.split(tag_key(name).strip(" -_/"))
    last = words[-1]
    if len(last) > 3:
        for plural, singular in _PLURAL_ENDINGS:
            if last.endswith(plural):
                last = last[: -len(plural)] + singular
                break
        else:
            if last.endswith("s") and not last.endswith(_NOT_PLURAL_ENDINGS):
                last = last[:-1]
    return " ".join([*words[:-1], last])
