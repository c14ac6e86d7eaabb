"""The papers close in meaning to a search: where the listing asks, and the semantic app answers.

Search by meaning is optional (docs/semantic.md): the `semantic` app registers a provider here
when its model and vector index can serve, and the listing asks `nearest(text)` on every
search it ranks. Without a provider, or when it fails, a search lists its word matches only:
the page works and says nothing is wrong with it. The seam keeps the engine and the list page
free of the model, and the semantic app free of the list page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

logger = logging.getLogger(__name__)

# The neighbours of a search's text, best first: at most `limit` paper ids.
Provider = Callable[[str, int], Sequence[int]]

# How many papers close in meaning a search lists beside its word matches, at most (the
# provider returns fewer when the rest are not close enough).
MEANING_LIMIT = 30

_provider: Provider | None = None


def register(provider: Provider | None) -> None:
    """Make `provider` answer `nearest` (None: search by words only)."""
    global _provider
    _provider = provider


def available() -> bool:
    return _provider is not None


def nearest(text: str, limit: int = MEANING_LIMIT) -> tuple[int, ...]:
    """The ids of the papers nearest `text` in meaning, best first; () without a provider or
    when it fails (logged: the words still find what they match)."""
    provider = _provider
    if provider is None or not text.strip():
        return ()
    try:
        return tuple(provider(text, limit))[:limit]
    except Exception:
        logger.exception("Search by meaning failed; listing word matches only")
        return ()
