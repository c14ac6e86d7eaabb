"""Rows of tags the importer creates: a free slug for each, looked up in bulk."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from django.db.models import Q

from papers.importing.bulk_rows import (
    chunks,
)
from papers.models import (
    Tag,
)
from papers.text import (
    tag_slug,
)


def by_kind_in_chunks(
    model, field_name: str, pairs: list[tuple[str, str]], *, kind_field: str = "kind"
) -> Iterator:
    """Rows of `model` matching (kind, value) pairs, IN_CHUNK pairs per query."""
    for chunk in chunks(pairs):
        by_kind: dict[str, list[str]] = {}
        for kind, value in chunk:
            by_kind.setdefault(kind, []).append(value)
        condition = Q()
        for kind, values in by_kind.items():
            condition |= Q(**{kind_field: kind, f"{field_name}__in": values})
        yield model.objects.filter(condition)


def free_slugs(missing: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """A slug for each new tag, unique within its kind among stored and new tags.

    Different keys can share a slug ("ICLR 2024" / "ICLR 2024!"); the later ones, in key order,
    get "-2", "-3", ... Candidates are checked against the database in bulk, a window per
    base slug that doubles each round, so many tags on one base, or a stored "iclr-2024-2",
    cost a few queries rather than one per tag or a quadratic search.
    """
    pending: dict[tuple[str, str], deque] = {}
    for (kind, key), name in sorted(missing.items()):
        pending.setdefault((kind, tag_slug(name)), deque()).append((kind, key))
    result: dict[tuple[str, str], str] = {}
    used: set[tuple[str, str]] = set()
    next_number = dict.fromkeys(pending, 1)
    window = 1
    while pending:
        proposals: dict[tuple[str, str], tuple[str, str]] = {}
        for group, members in pending.items():
            kind, base = group
            first = next_number[group]
            next_number[group] = first + max(len(members), window)
            for number in range(first, next_number[group]):
                slug = base if number == 1 else f"{base}-{number}"
                if (kind, slug) not in used:
                    proposals.setdefault((kind, slug), group)
        taken = set()  # query: slugs already in use
        for rows in by_kind_in_chunks(Tag, "slug", list(proposals)):
            taken.update(rows.values_list("kind", "slug"))
        for candidate, group in proposals.items():
            members = pending[group]
            if members and candidate not in taken:
                result[members.popleft()] = candidate[1]
                used.add(candidate)
        pending = {group: members for group, members in pending.items() if members}
        window *= 2
    return result
