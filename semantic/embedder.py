"""The embedding model of this process, loaded once, or None when semantic search is off.

settings.SEMANTIC_SEARCH is "auto" (on when the `semantic` extra imports and the model loads)
or "off". settings.SEMANTIC_EMBEDDER names a factory `f(onnx_path) -> Embedder`: the real
model by default; tests name a tiny fake one, so the suite needs neither the extra nor the file.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        ...


_lock = threading.Lock()
_loaded: dict[tuple[str, str, str], Embedder | None] = {}


def get_embedder() -> Embedder | None:
    """The model, or None (semantic search off, the extra missing, or the model unloadable)."""
    if settings.SEMANTIC_SEARCH == "off":
        return None
    key = (settings.SEMANTIC_SEARCH, settings.SEMANTIC_EMBEDDER, str(settings.SEMANTIC_ONNX_PATH))
    with _lock:
        if key not in _loaded:
            _loaded[key] = _load()
        return _loaded[key]


def _load() -> Embedder | None:
    try:
        factory = import_string(settings.SEMANTIC_EMBEDDER)
        return factory(Path(settings.SEMANTIC_ONNX_PATH))
    except ImportError as exc:
        logger.info("Semantic search is off: the `semantic` extra is not installed (%s)", exc)
    except FileNotFoundError as exc:
        logger.info("Semantic search is off: %s (make semantic-model)", exc)
    except Exception:
        # A missing or broken ONNX file: the site works lexically and the log says why.
        logger.exception("Semantic search is off: the model did not load")
    return None


def reset() -> None:
    """Forget the loaded model (tests change the settings)."""
    with _lock:
        _loaded.clear()
