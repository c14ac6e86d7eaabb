"""Settling import conflicts: a curator keeps the current value or takes the incoming one.

A conflict holds two values of one field of a paper: `previous`, the catalogue's value when
the import came (a curator's, which the import kept, or another source's, which it replaced),
and `incoming`, the import's. "Keep current" leaves the paper with `previous`, "take incoming"
with `incoming`; either way the field becomes the curator's (Paper.curator_edited_fields), so
no later import flips it back (a source that changes it again is listed as a new conflict), and
the conflict records who settled it, when and how.

An author list or tags are shown as joined names, but written from the structured values the
import kept (ImportConflict.previous_data, incoming_data): authors through the importer's own
author resolution (profile ids first, then names; the order kept), tags through the tag
service (merged spellings mean the kept tag). A conflict recorded before those were kept
cannot be rewritten from its names, and is refused with a message saying what to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from papers.importing.authors import authorship_rows, people_of_data, resolve_authors
from papers.models import Authorship, ImportConflict, Paper, PaperTag, SearchChange
from papers.signals import abstracts_changed
from papers.tags import service as tag_service
from papers.text import abstract_fingerprint

Resolution = ImportConflict.Resolution
# Fields whose value a conflict holds as it is stored.
VALUE_FIELDS = frozenset({"title", "abstract", "forum_url", "pdf_url", "doi", "year"})
# Fields a conflict shows as joined names and writes from its structured values.
LIST_FIELDS = frozenset({"authors", "tags"})


@dataclass
class Settled:
    settled: int = 0
    # Conflicts left open, with why ("#12: edit the authors on the paper's page").
    refused: list[str] = field(default_factory=list)
    # Paper id -> the fields given a value, for the admin's change log.
    changed: dict[int, list[str]] = field(default_factory=dict)


def chosen_value(conflict: ImportConflict, resolution: str) -> str:
    return conflict.incoming if resolution == Resolution.TAKEN else conflict.previous


def chosen_data(conflict: ImportConflict, resolution: str) -> list | None:
    """The structured value the choice writes, None when the conflict kept none."""
    return conflict.incoming_data if resolution == Resolution.TAKEN else conflict.previous_data


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
    whose choice would rewrite an author list or tags from joined names only (recorded before
    structured values were kept) stays open, said in `refused`."""
    result = Settled()
    now = timezone.now()
    papers: dict[int, Paper] = {}
    done: list[ImportConflict] = []
    for conflict in conflicts:
        if conflict.resolved_at is not None:
            continue
        if changes_paper(conflict, resolution):
            data = chosen_data(conflict, resolution)
            if conflict.field not in VALUE_FIELDS and (
                conflict.field not in LIST_FIELDS or data is None
            ):
                result.refused.append(
                    f"#{conflict.pk}: recorded without the {conflict.field} as a list, so they "
                    f"cannot be rewritten from their names: edit the {conflict.field} on the "
                    "paper's page, then mark the conflict resolved"
                )
                continue
            paper = papers.setdefault(conflict.paper_id, _locked(conflict.paper_id))
            if conflict.field == "authors":
                _set_authors(paper, data or [])
            elif conflict.field == "tags":
                _add_tags(paper, data or [])
            else:
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
        if "authors" in written:  # the authorships are written; the paper keeps their names
            written.add("author_names")
        written -= LIST_FIELDS
        paper.save(update_fields=sorted(written))  # post_save records it for the search index
    abstract_ids = [pk for pk, names in result.changed.items() if "abstract" in names]
    if abstract_ids:
        abstracts_changed.send(Paper, paper_ids=abstract_ids)
    ImportConflict.objects.bulk_update(done, ["resolved_at", "resolved_by", "resolution"])
    result.settled = len(done)
    return result


def _set_authors(paper: Paper, data: list) -> None:
    """Rebuild the paper's ordered authorships from an author list's structured value, as an
    import would: the same people, found by profile id then name, created when missing."""
    people = people_of_data(data)
    rows = authorship_rows(people, resolve_authors(people))
    Authorship.objects.filter(paper=paper).delete()
    Authorship.objects.bulk_create(
        Authorship(paper=paper, author_id=row.pk, position=position)
        for position, row in enumerate(rows)
    )
    # Saved with the paper: its post_save records the search document's change.
    paper.author_names = ", ".join(row.name for row in rows)


def _add_tags(paper: Paper, data: list) -> None:
    """Tag the paper with the tags a structured value names, through the tag service (a
    spelling merged into another tag means the kept tag); tags it has are left as they are."""
    tags = tag_service.tags_named((entry["kind"], entry["name"]) for entry in data)
    has = set(paper.paper_tags.filter(tag__in=tags).values_list("tag_id", flat=True))
    new = [PaperTag(paper=paper, tag=tag) for tag in tags if tag.pk not in has]
    PaperTag.objects.bulk_create(new)
    SearchChange.objects.record([paper.pk])  # bulk_create sends no signal


def _locked(paper_id: int) -> Paper:
    return Paper.objects.select_for_update().get(pk=paper_id)


def _set_value(paper: Paper, name: str, value: str) -> None:
    if name == "year":
        paper.year = int(value) if value.strip().isdigit() else None
        return
    setattr(paper, name, value)
    if name == "abstract":
        paper.abstract_fingerprint = abstract_fingerprint(value) if value else ""
