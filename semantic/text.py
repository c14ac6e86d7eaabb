"""What of a paper is embedded, and the hash that tells whether it changed."""

from __future__ import annotations

import hashlib


def embedded_text(title: str, abstract: str) -> str:
    """The title, then the abstract: what sentence-transformers models are trained on."""
    return f"{title.strip()}. {abstract.strip()}" if abstract.strip() else title.strip()


def text_hash(text: str) -> str:
    """A short digest of the embedded text: an unchanged text is not embedded again."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
