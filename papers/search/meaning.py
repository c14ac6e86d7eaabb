"""The papers close in meaning: where the site asks, and the semantic app answers.

Search by meaning is optional (docs/semantic.md): the `semantic` app registers its providers
here when its model and vector index can serve. The list page asks `nearest(text)` on every
search it ranks; the paper page asks `neighbours(paper_id)` for its similar papers. Without a
provider, or when one fails, the site lists word matches and "more like this" only: every page
works and the list page says search by meaning is off. The seam keeps the engine and the pages
free of the model, and the semantic app free of the pages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

logger = logging.getLogger(__name__)

# The neighbours of a search's text, best first: at most `limit` paper ids.
TextProvider = Callable[[str, int], Sequence[int]]
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

Key = TypeVar("Key", str, int)


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


def nearest(text: str, limit: int = MEANING_LIMIT) -> tuple[int, ...]:
    """The ids of the papers nearest `text` in meaning, best first; () without a provider or
    when it fails (logged: the words still find what they match)."""
    if not text.strip() or not available():
        return ()
    return _asked(_text_provider, text, limit)


def neighbours(paper_id: int, limit: int = NEIGHBOUR_LIMIT) -> tuple[int, ...]:
    """The ids of the papers nearest the paper in meaning, best first; () as `nearest`."""
    if not available():
        return ()
    return _asked(_paper_provider, paper_id, limit)


def _asked(provider: Callable[[Key, int], Sequence[int]] | None, key: Key, limit: int):
    if provider is None:
        return ()
    try:
        return tuple(provider(key, limit))[:limit]
    except Exception:
        logger.exception("Search by meaning failed; words only")
        return ()
