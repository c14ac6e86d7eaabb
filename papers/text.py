"""Normalisation rules shared by the importer, the admin and lab tagging.

Pure functions, no database: two spellings that normalise equal are the same thing.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from django.utils.text import slugify

_SPACE = re.compile(r"\s+")
_NAME_PUNCTUATION = re.compile(r"[.,]")


def collapse_whitespace(value: str) -> str:
    return _SPACE.sub(" ", value).strip()


def normalize_author_name(name: str) -> str:
    """Key that matches "Christopher D. Manning" and "christopher d manning"."""
    name = unicodedata.normalize("NFKC", name)
    name = _NAME_PUNCTUATION.sub(" ", name)
    return collapse_whitespace(name).casefold()


def normalize_tag_name(name: str) -> str:
    """Display form of a tag: NFKC, single spaces, trimmed ("  RL " -> "RL")."""
    return collapse_whitespace(unicodedata.normalize("NFKC", name))


def tag_key(name: str) -> str:
    """Identity of a tag within its kind: "RL", "rl " and "Rl" share one key."""
    return normalize_tag_name(name).casefold()


def tag_slug(name: str) -> str:
    """URL slug for a tag; names with no sluggable characters get a stable hash."""
    slug = slugify(tag_key(name), allow_unicode=True)[:80]
    if not slug:
        slug = "tag-" + hashlib.sha256(tag_key(name).encode()).hexdigest()[:12]
    return slug


def abstract_fingerprint(abstract: str) -> str:
    """Hash of the abstract with case and whitespace differences removed.

    Lets an abstract-only record and a later full record of the same paper meet.
    """
    normalised = collapse_whitespace(unicodedata.normalize("NFKC", abstract)).casefold()
    if not normalised:
        return ""
    return hashlib.sha256(normalised.encode()).hexdigest()
