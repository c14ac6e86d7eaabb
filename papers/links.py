"""A link as pages listing papers show one (papers.listing writes them, Paper carries them): a
leaf module, so the models can name it without importing the listing code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Link:
    """An author or a tag as a listing shows it; `kind` is a tag's kind, "" for an author."""

    name: str
    url: str
    kind: str = ""
