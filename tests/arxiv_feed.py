"""Atom pages as arXiv's API writes them (API User's Manual 3.3), for the arXiv fetch tests.
The builders live with the local stand-in of arXiv (bench/standins.py), which serves them too."""

from __future__ import annotations

from datetime import date, timedelta

from bench.standins import atom_entry, feed

__all__ = ["atom_entry", "feed", "numbered"]


def numbered(count: int, *, first_day: date = date(2024, 3, 1)) -> list[str]:
    """`count` entries newest first, one a day back from `first_day`, ids 2403.00000 on."""
    return [
        atom_entry(
            f"2403.{n:05d}",
            published=f"{first_day - timedelta(days=n)}T12:00:00Z",
            summary=f"Abstract {n}.",
        )
        for n in range(count)
    ]
