"""What a member's text names on a service outside: an arXiv paper, an OpenReview forum or a DOI.

Stricter than papers.suggest.identifier_lookups, which only asks the catalogue: anything parsed
here may cost a request to a service, so a bare word is an OpenReview forum id only when it is
shaped like one (see _looks_like_forum_id), and an URL only when it is the service's own. The
normalising itself (versions, "arXiv:", "doi:", resolver links) is papers.text's, shared with
the readers and the catalogue lookups.

A DOI goes into a request's path (papers.sources.crossref encodes it as one segment), so one
that could name another path is refused with a message (RefusedIdentifier): a ".." or "."
segment (also once percent-decoded, or between backslashes), an encoded dot (%2e, %252e), a
control character or a space.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote, urlsplit

from django.db.models import Q

from papers.querysets import identifier_in
from papers.text import (
    forum_id_from_url,
    is_arxiv_id,
    is_doi,
    is_forum_id,
    normalize_arxiv_id,
    normalize_doi,
)

# OpenReview's generated ids are 9 or 10 characters (10 since API v2), e.g. "SyZipzbCb",
# "Zg8ygQlHhl", "rJl-b3RcF7"; a few older ones are longer. A bare word is taken for one only
# with a digit or three capitals, and not all digits (a paper number): "transformers",
# "Attention" or "BatchNorm" are words someone searches for.
_FORUM_ID_SHAPE = re.compile(r"[A-Za-z0-9_\-]{8,14}")
_OPENREVIEW_HOSTS = frozenset({"openreview.net", "www.openreview.net"})
# What a DOI starts with ("10.", a registrant code, "/"): text that does is judged as a DOI.
_DOI_START = re.compile(r"10\.\d{4,9}/")
# A dot percent-encoded, once or more ("%2e", "%252e"): a server decoding twice sees "..".
_ENCODED_DOT = re.compile(r"%(?:25)*2e", re.IGNORECASE)
_SEGMENT_SEPARATOR = re.compile(r"[/\\]")


class RefusedIdentifier(ValueError):
    """Text shaped like a DOI that no request may be made with; `message` is for the member."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class Kind(StrEnum):
    ARXIV = "arxiv_id"
    OPENREVIEW = "forum_id"
    DOI = "doi"


@dataclass(frozen=True)
class Identifier:
    kind: Kind
    value: str  # normalised as the catalogue stores it

    def lookup(self) -> Q:
        """The catalogue's papers with this identifier."""
        return identifier_in(self.kind.value, [self.value])

    def __str__(self) -> str:
        return self.value


def parse_identifier(text: str) -> Identifier | None:
    """The outside paper `text` names exactly (arXiv id or abs/pdf link, OpenReview forum link
    or id, DOI bare, "doi:" or a doi.org link), or None. RefusedIdentifier for a DOI that
    could name another path than its own (doi_problem)."""
    raw = text.strip()
    if not raw or len(raw) > 500:
        return None
    arxiv_id = normalize_arxiv_id(raw)
    if is_arxiv_id(arxiv_id):
        return Identifier(Kind.ARXIV, arxiv_id)
    doi = normalize_doi(raw)
    if _DOI_START.match(doi) and (problem := doi_problem(doi)):
        raise RefusedIdentifier(f"That DOI cannot be looked up: {problem}.")
    if is_doi(doi):
        return Identifier(Kind.DOI, doi)
    forum_id = _forum_id(raw)
    if forum_id:
        return Identifier(Kind.OPENREVIEW, forum_id)
    return None


def doi_problem(doi: str) -> str:
    """Why `doi` may not go into a request's path, or "" when it may."""
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in doi):
        return "it holds a control or invisible character"
    if any(char.isspace() for char in doi):
        return "it holds a space"
    if _ENCODED_DOT.search(doi):
        return "it holds an encoded dot (%2e)"
    decoded = doi
    for _ in range(3):  # as written, and as a server decoding it once or twice reads it
        if any(segment in (".", "..") for segment in _SEGMENT_SEPARATOR.split(decoded)):
            return 'it holds a "." or ".." path segment'
        decoded = unquote(decoded)
    return ""


def _forum_id(raw: str) -> str:
    if "/" in raw:
        try:
            host = (urlsplit(raw if "://" in raw else f"https://{raw}").hostname or "").lower()
        except ValueError:
            return ""
        forum_id = forum_id_from_url(raw) if host in _OPENREVIEW_HOSTS else ""
        return forum_id if is_forum_id(forum_id) else ""
    return raw if _looks_like_forum_id(raw) else ""


def _looks_like_forum_id(word: str) -> bool:
    if _FORUM_ID_SHAPE.fullmatch(word) is None or word.isdigit():
        return False
    return any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 3
