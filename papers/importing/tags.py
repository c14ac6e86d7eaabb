"""How an imported tag string becomes a venue tag or a presentation-track tag.

Sources list a paper's tags as one string or list, e.g. "ICLR 2024,Poster". The rule, in order:

1. A known presentation-track word or phrase is a **track**: poster, spotlight, oral, talk,
   invited talk, contributed talk, notable-top-5%, notable-top-25%, highlight, demo, workshop,
   findings, best paper, ..., and a submission's status when not accepted: submitted,
   withdrawn, rejected, desk rejected (compared case-insensitively with spaces, "-" and "_"
   ignored).
2. A tag containing a year (1950-2099), e.g. "ICLR 2024", "NeurIPS 2023 Datasets and
   Benchmarks", is a **venue**.
3. Anything else is a venue when it is the record's first tag and the record has no other venue
   ("NeurIPS" alone, listed first the way sources list the conference), otherwise a track
   (qualifiers such as "Datasets and Benchmarks" or "Main").

Imported tags are never lab tags: lab tags belong to members.
"""

from __future__ import annotations

import functools
import re

from papers.models import TagKind
from papers.tags.identity import normalize_tag_name, tag_key

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_TRACK_WORDS = {
    "poster",
    "spotlight",
    "oral",
    "talk",
    "invitedtalk",
    "contributedtalk",
    "notabletop5%",
    "notabletop25%",
    "notable",
    "highlight",
    "demo",
    "workshop",
    "findings",
    "bestpaper",
    "award",
    "longpaper",
    "shortpaper",
    "accept",
    "accepted",
    # Not accepted: OpenReview's status of a submission (papers.importing.openreview), kept in
    # the track so that the venue alone does not read as an acceptance.
    "submitted",
    "withdrawn",
    "rejected",
    "deskrejected",
}


def _squash(name: str) -> str:
    return re.sub(r"[\s\-_()]+", "", name.casefold())


def is_track_word(name: str) -> bool:
    return _squash(name) in _TRACK_WORDS


def classify_tags(names: list[str]) -> list[tuple[str, str]]:
    """(kind, display name) for each distinct tag, in the given order."""
    return list(_classified(tuple(names)))


# Most records of a file carry one of a few tag lists ("ICLR 2024", "Poster"): each is
# classified once. A pure function of its argument, so the cache is never stale.
@functools.lru_cache(maxsize=4096)
def _classified(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    cleaned = [normalize_tag_name(name) for name in names if normalize_tag_name(name)]
    has_venue = any(_YEAR.search(name) and not is_track_word(name) for name in cleaned)
    result: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for index, name in enumerate(cleaned):
        if is_track_word(name):
            kind = TagKind.TRACK
        elif _YEAR.search(name):
            kind = TagKind.VENUE
        elif index == 0 and not has_venue:
            kind = TagKind.VENUE
        else:
            kind = TagKind.TRACK
        identity = (str(kind), tag_key(name))
        if identity not in seen:
            seen.add(identity)
            result.append((str(kind), name))
    return tuple(result)


def topic_tags(keywords: list[str], primary_area: str) -> list[tuple[str, str]]:
    """(kind, display name) for a record's keywords and primary area, normalised like lab
    tags: one per key ("Diffusion Models" and "diffusion models" are one keyword)."""
    result: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    named = [(TagKind.KEYWORD, name) for name in keywords] + [(TagKind.AREA, primary_area)]
    for kind, raw in named:
        name = normalize_tag_name(raw)
        identity = (str(kind), tag_key(name))
        if name and identity not in seen:
            seen.add(identity)
            result.append((str(kind), name))
    return result


# "Submitted" is what OpenReview says of a paper before its decision: a record that brings any
# other track (Poster, Oral, Rejected, Withdrawn) decides it, and "Submitted" goes.
PROVISIONAL_TRACK = "Submitted"
_PROVISIONAL = (str(TagKind.TRACK), tag_key(PROVISIONAL_TRACK))


def superseded_tags(
    current: set[tuple[str, str]], incoming: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """(kind, name) of the paper's tags that the incoming record's tags replace: its provisional
    track once the record brings a decided one. `current` holds (kind, key) pairs."""
    incoming_keys = {(kind, tag_key(name)) for kind, name in incoming}
    decided = any(kind == TagKind.TRACK for kind, _ in incoming_keys - {_PROVISIONAL})
    if decided and _PROVISIONAL in current and _PROVISIONAL not in incoming_keys:
        return [(str(TagKind.TRACK), PROVISIONAL_TRACK)]
    return []


def venue_from_heading(heading: str) -> str:
    """ "ICLR 2024 Papers" -> "ICLR 2024": the heading of an abstract-only list names the venue."""
    name = normalize_tag_name(heading).strip("#*= ").strip()
    name = re.sub(
        r"(?i)\s*[:\-–]?\s*(accepted\s+)?(papers|abstracts|paper\s+abstracts)\s*$", "", name
    )
    return name.strip()
