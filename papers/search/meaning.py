"""The papers close in meaning: where the site asks, and the semantic app answers.

Search by meaning is optional (docs/semantic.md): the `semantic` app registers its providers
here when its model and vector index can serve. The list page hands the engine a `Question`
for every search it ranks, which the engine asks for the papers nearest it among those the
filters allow (papers/search/fusion.py); the paper page asks `neighbours(paper_id)` for its
similar papers. Without a
provider, or when one fails, the site lists word matches and "more like this" only: every page
works and the list page says search by meaning is off. The seam keeps the engine and the pages
free of the model, and the semantic app free of the pages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from typing import Protocol

logger = logging.getLogger(__name__)

# The neighbours of a search's text, best first: at most `limit` paper ids, of the papers
# `among` when given (an exact scan of theirs), else of the whole catalogue.
TextProvider = Callable[[str, int, Collection[int] | None], Sequence[int]]
# The neighbours of a paper (never itself), best first: at most `limit` paper ids.
PaperProvider = Callable[[int, int], Sequence[int]]

# How many papers close in meaning a search lists beside its word matches, at most (the
# provider returns fewer when the rest are not close enough).
MEANING_LIMIT = 30
# How many neighbours of a paper are fused with its "more like this" papers.
NEIGHBOUR_LIMIT = 20

_text_provider: TextProvider | None = None
_paper_provider: PaperProvider | None = None
_available: Callable[[], bool] | None = None


def register(
    nearest: TextProvider | None,
    neighbours: PaperProvider | None = None,
    available: Callable[[], bool] | None = None,
) -> None:
    """Make these providers answer `nearest` and `neighbours` (None: words only);
    `available` says whether they can answer now (the model may be missing)."""
    global _text_provider, _paper_provider, _available
    _text_provider, _paper_provider, _available = nearest, neighbours, available


def registered() -> tuple[TextProvider | None, PaperProvider | None, Callable[[], bool] | None]:
    """What `register` was last given, to put back (tests)."""
    return _text_provider, _paper_provider, _available


def available() -> bool:
    if _text_provider is None:
        return False
    try:
        return _available() if _available is not None else True
    except Exception:
        logger.exception("Search by meaning failed; words only")
        return False


def nearest(
    text: str, limit: int = MEANING_LIMIT, among: Collection[int] | None = None
) -> tuple[int, ...]:
    """The ids of the papers nearest `text` in meaning, best first (of the papers `among`
    when given); () without a provider or when it fails (logged: the words still find what
    they match)."""
    if not text.strip() or not available():
        return ()
    return _asked(_text_provider, limit, text, limit, among)


class Neighbours(Protocol):
    """What the engine asks of a search's meaning (BrowseQuery.meaning)."""

    def nearest(self, limit: int, among: Collection[int] | None = None) -> Sequence[int]:
        """At most `limit` paper ids, best first: of the papers `among` when given (which
        the caller has from the filters), else of the whole catalogue."""
        ...


class Question:
    """A search's text as the engine asks for its neighbours. Each answer is kept: a request
    asking twice the same (a page past the end is searched again as the last page) embeds,
    reads the change log and looks the vectors up once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._answers: dict[tuple[int, tuple[int, ...] | None], tuple[int, ...]] = {}

    def nearest(self, limit: int, among: Collection[int] | None = None) -> tuple[int, ...]:
        key = (limit, None if among is None else tuple(sorted(among)))
        if key not in self._answers:
            self._answers[key] = nearest(self.text, limit, among)
        return self._answers[key]


class Ranked:
    """Neighbours given as a ranking, best first (tests and benchmarks, which have them)."""

    def __init__(self, ids: Sequence[int]) -> None:
        self.ids = tuple(ids)

    def nearest(self, limit: int, among: Collection[int] | None = None) -> tuple[int, ...]:
        allowed = None if among is None else set(among)
        return tuple(pk for pk in self.ids if allowed is None or pk in allowed)[:limit]


def neighbours(paper_id: int, limit: int = NEIGHBOUR_LIMIT) -> tuple[int, ...]:
    """The ids of the papers nearest the paper in meaning, best first; () as `nearest`."""
    if not available():
        return ()
    return _asked(_paper_provider, limit, paper_id, limit)


def _asked(provider: Callable[..., Sequence[int]] | None, limit: int, *args) -> tuple[int, ...]:
    if provider is None:
        return ()
    try:
        return tuple(provider(*args))[:limit]
    except Exception:
        logger.exception("Search by meaning failed; words only")
        return ()
