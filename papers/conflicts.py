"""Settling import conflicts: a curator keeps the current value or takes the incoming one.

A conflict holds two values of one field of a paper: `previous`, the catalogue's value when
the import came (a curator's, which the import kept, or another source's, which it replaced),
and `incoming`, the import's. "Keep current" leaves the paper with `previous`, "take incoming"
with `incoming`; either way the field becomes the curator's (Paper.curator_edited_fields), so
no later import flips it back (a source that changes it again is listed as a new conflict), and
the conflict records who settled it, when and how.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from papers.models import ImportConflict, Paper
from papers.signals import abstracts_changed
from papers.text import abstract_fingerprint

Resolution = ImportConflict.Resolution
# Fields whose value a conflict holds as it is stored. Authors and tags are listed as joined
# names: a curator settles those on the paper's page (or keeps the value the paper has).
VALUE_FIELDS = frozenset({"title", "abstract", "forum_url", "pdf_url", "doi", "year"})


@dataclass
class Settled:
    settled: int = 0
    # Conflicts left open, with why ("#12: edit the authors on the paper's page").
    refused: list[str] = field(default_factory=list)
    # Paper id -> the fields given a value, for the admin's change log.
    changed: dict[int, list[str]] = field(default_factory=dict)


def chosen_value(conflict: ImportConflict, resolution: str) -> str:
    return conflict.incoming if resolution == Resolution.TAKEN else conflict.previous


def changes_paper(conflict: ImportConflict, resolution: str) -> bool:
    """Whether the choice means writing a value: the paper holds `previous` for a curator's
    conflict (the import kept it) and `incoming` for two sources' (the import applied it)."""
    if resolution == Resolution.MARKED:
        return False
    holds = Resolution.KEPT if conflict.kind == ImportConflict.Kind.CURATED else Resolution.TAKEN
    return resolution != holds


@transaction.atomic
def settle_conflicts(
    conflicts: Iterable[ImportConflict], *, resolution: str, user: User | None
) -> Settled:
    """Settle the open ones of `conflicts` as `resolution` (kept, taken or marked); a conflict
    whose choice would rewrite an author list or tags stays open, said in `refused`."""
    result = Settled()
    now = timezone.now()
    papers: dict[int, Paper] = {}
    done: list[ImportConflict] = []
    for conflict in conflicts:
        if conflict.resolved_at is not None:
            continue
        if changes_paper(conflict, resolution):
            if conflict.field not in VALUE_FIELDS:
                result.refused.append(
                    f"#{conflict.pk}: edit the {conflict.field} on the paper's page, then mark "
                    "the conflict resolved"
                )
                continue
            paper = papers.setdefault(conflict.paper_id, _locked(conflict.paper_id))
            _set_value(paper, conflict.field, chosen_value(conflict, resolution))
            result.changed.setdefault(paper.pk, []).append(conflict.field)
        if resolution != Resolution.MARKED:
            paper = papers.setdefault(conflict.paper_id, _locked(conflict.paper_id))
            # Pinned for every field, authors and tags included: the curator has decided.
            paper.curator_edited_fields = sorted({*paper.curator_edited_fields, conflict.field})
        conflict.resolved_at, conflict.resolved_by, conflict.resolution = now, user, resolution
        done.append(conflict)
    for paper in papers.values():
        written = {"curator_edited_fields", *result.changed.get(paper.pk, [])}
        if "abstract" in written:
            written.add("abstract_fingerprint")
        paper.save(update_fields=sorted(written))  # post_save records it for the search index
    abstract_ids = [pk for pk, names in result.changed.items() if "abstract" in names]
    if abstract_ids:
        abstracts_changed.send(Paper, paper_ids=abstract_ids)
    ImportConflict.objects.bulk_update(done, ["resolved_at", "resolved_by", "resolution"])
    result.settled = len(done)
    return result


def _locked(paper_id: int) -> Paper:
    return Paper.objects.select_for_update().get(pk=paper_id)


def _set_value(paper: Paper, name: str, value: str) -> None:
    if name == "year":
        paper.year = int(value) if value.strip().isdigit() else None
        return
    setattr(paper, name, value)
    if name == "abstract":
        paper.abstract_fingerprint = abstract_fingerprint(value) if value else ""
