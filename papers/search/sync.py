"""The per-request entry point: this process's search index, caught up with the database.

Views call `current_searcher()` once per request and hand the searcher to the engine. It costs
one query when nothing changed; when the database is ahead it applies the new changes first
(see papers/search/store.py). It raises IndexUnavailable when there is no usable index, which
the site answers with its 503 page naming `IndexUnavailable.command`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import tantivy
from django.conf import settings

from papers.search.store import IndexUnavailable, SearchIndex

__all__ = ["IndexUnavailable", "current_searcher", "reset", "search_index"]

_lock = threading.Lock()
_index: SearchIndex | None = None


def search_index() -> SearchIndex:
    """This process's SearchIndex for settings.SEARCH_INDEX_DIR (a forked child gets its own)."""
    global _index
    directory = Path(settings.SEARCH_INDEX_DIR)
    index = _index
    if index is not None and index.directory == directory and index.pid == os.getpid():
        return index
    with _lock:
        if _index is None or _index.directory != directory or _index.pid != os.getpid():
            if _index is not None and _index.pid == os.getpid():
                _index.close()
            _index = SearchIndex(directory)
        return _index


def current_searcher() -> tantivy.Searcher:
    """A searcher that reflects every change committed before the call."""
    return search_index().catch_up()


def reset() -> None:
    """Forget this process's index (tests give each test its own directory)."""
    global _index
    with _lock:
        if _index is not None and _index.pid == os.getpid():
            _index.close()
        _index = None
