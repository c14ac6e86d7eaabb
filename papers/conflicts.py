"""Settling import conflicts: a curator keeps the current value or takes the incoming one.

A conflict holds two values of one field of a paper: `previous`, the catalogue's value when
the import came (a curator's, which the import kept, or another source's, which it replaced),
and `incoming`, the import's. "Keep current" leaves the paper with `previous`, "take incoming"
with `incoming`; either way the field becomes the curator's (Paper.curator_edited_fields), so
no later import flips it back (a source that changes it again is listed as a new conflict), and
the conflict records who settled it, when and how.

Settling is a compare-and-set: a choice is written (and recorded) only while the paper still
holds the value the import left it with (held_value: `previous` for a curator's conflict,
`incoming` for two sources') and no newer conflict about the field came. Otherwise the field
"changed since": the choice is refused, naming the newer conflict to settle instead (or the
paper, changed by hand). A newer conflict closes the older open ones about its field as it is
listed, whatever their source (supersede_older_conflicts). So only the newest conflict about a
field can be settled, and a bulk settle gives the same result in any order.

An author list or tags are shown as joined names, but written from the structured values the
import kept (ImportConflict.previous_data, incoming_data): authors through the importer's own
author resolution (profile ids first, then names; the order kept), tags through the tag
service (merged spellings mean the kept tag). A conflict recorded before those were kept
cannot be compared or rewritten from its names, and is refused with a message saying what to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from papers.importing.authors import (
    authorship_rows,
    people_of_data,
    people_of_paper,
    resolve_authors,
    same_people,
)
from papers.importing.bulk_rows import chunks
from papers.models import Authorship, ImportConflict, Paper, PaperTag, SearchChange
from papers.querysets import newest_about_field
from papers.signals import abstracts_changed
from papers.tags import service as tag_service
from papers.text import abstract_fingerprint

Resolution = ImportConflict.Resolution
# Fields whose value a conflict holds as it is stored.
VALUE_FIELDS = frozenset({"title", "abstract", "forum_url", "pdf_url", "doi", "year"})
# Fields a conflict shows as joined names and writes from its structured values.
LIST_FIELDS = frozenset({"authors", "tags"})


@dataclass(frozen=True)
class Refusal:
    """A conflict a choice left as it was, and why."""

    conflict_id: int
    paper_id: int
    reason: str
    # The paper's field changed since the conflict was listed: by the import of a newer
    # conflict (`newer_id`, the newest about the field, to settle instead) or by hand (None).
    changed_since: bool = False
    newer_id: int | None = None

    def __str__(self) -> str:
        return f"#{self.conflict_id}: {self.reason}"


@dataclass
class Settled:
    settled: int = 0
    refused: list[Refusal] = field(default_factory=list)
    # Paper id -> the fields given a value, for the admin's change log.
    changed: dict[int, list[str]] = field(default_factory=dict)
    # The conflicts settled, each with its paper, for the admin's change log.
    done: list[ImportConflict] = field(default_factory=list)


def chosen_value(conflict: ImportConflict, resolution: str) -> str:
    return conflict.incoming if resolution == Resolution.TAKEN else conflict.previous


def chosen_data(conflict: ImportConflict, resolution: str) -> list | None:
    """The structured value the choice writes, None when the conflict kept none."""
    return conflict.incoming_data if resolution == Resolution.TAKEN else conflict.previous_data


def held_resolution(conflict: ImportConflict) -> str:
    """The choice the paper holds as the import left it: `previous` for a curator's conflict
    (the import kept it), `incoming` for two sources' (the import applied it)."""
    return Resolution.KEPT if conflict.kind == ImportConflict.Kind.CURATED else Resolution.TAKEN


def changes_paper(conflict: ImportConflict, resolution: str) -> bool:
    """Whether the choice means writing a value rather than keeping the one the paper holds."""
    return resolution != Resolution.MARKED and resolution != held_resolution(conflict)


def still_holds(conflict: ImportConflict, paper: Paper) -> bool:
    """Whether the paper holds the value the import left it with (the conflict's "current");
    an author list or tags conflict is compared by its structured values (_kept_as_lists)."""
    held = held_resolution(conflict)
    if conflict.field == "authors":
        return same_people(
            people_of_data(chosen_data(conflict, held) or []), people_of_paper(paper.pk)
        )
    if conflict.field == "tags":
        # Tags are only added: a curator's conflict lists those the import could not add, and
        # holds while the paper has none of them.
        return not _has_any_tag(paper, conflict.incoming_data or [])
    return _value_text(paper, conflict.field) == chosen_value(conflict, held)


def supersede_older_conflicts(paper_ids: Iterable[int]) -> int:
    """Close the open conflicts about these papers that a newer conflict about the same field
    came after, whatever its source, as superseded by the newest: the value they call current
    is no longer the paper's. One a curator settled meanwhile stays as settled."""
    now, closed = timezone.now(), 0
    for chunk in chunks(sorted(set(paper_ids))):  # query: close the superseded ones
        older = ImportConflict.objects.open().filter(paper_id__in=chunk).not_newest()
        closed += older.update(
            resolved_at=now, resolution=Resolution.SUPERSEDED, superseded_by=newest_about_field()
        )
    return closed


@transaction.atomic
def settle_conflicts(conflict_ids: Iterable[int], *, resolution: str, user: User | None) -> Settled:
    """Settle the open ones of these conflicts as `resolution` (kept, taken or marked), each
    only where the paper still holds the value it calls current and it is the newest about its
    field (a choice written over a newer value would bring an older one back); the others are
    said in `refused`, as are author lists and tags recorded without their structured values.
    Marking resolved writes nothing, so it needs neither."""
    result = Settled()
    ids = sorted(set(conflict_ids))
    # The papers are locked first, in id order (an import writes them before its conflicts),
    # then the conflicts read again: two curators' choices, or a choice and an import, take
    # turns, and each is compared with what the paper holds now.
    paper_ids: set[int] = set()
    for chunk in chunks(ids):  # query: the conflicts' papers
        rows = ImportConflict.objects.filter(pk__in=chunk).values_list("paper_id", flat=True)
        paper_ids.update(rows)
    papers = _locked_papers(paper_ids)
    conflicts: list[ImportConflict] = []
    newest: dict[tuple[int, str], int] = {}
    for chunk in chunks(ids):  # query: the conflicts, locked
        conflicts += ImportConflict.objects.select_for_update().filter(pk__in=chunk)
    for chunk in chunks(sorted(paper_ids)):  # query: the newest conflict about each field
        newest.update(ImportConflict.objects.filter(paper_id__in=chunk).newest_by_field())
    now = timezone.now()
    for conflict in sorted(conflicts, key=lambda c: c.pk):
        conflict.paper = paper = papers[conflict.paper_id]
        if resolution == Resolution.MARKED:
            if conflict.resolved_at is None:
                _record(result, conflict, resolution, user, now)
            continue
        if conflict.resolved_at is not None and conflict.resolution != Resolution.SUPERSEDED:
            continue  # settled before: selected again
        refusal = _refusal(conflict, paper, newest[(paper.pk, conflict.field)])
        if refusal is not None:
            result.refused.append(refusal)
            continue
        if changes_paper(conflict, resolution):
            data = chosen_data(conflict, resolution)
            if conflict.field == "authors":
                _set_authors(paper, data or [])
            elif conflict.field == "tags":
                _add_tags(paper, data or [])
            else:
                _set_value(paper, conflict.field, chosen_value(conflict, resolution))
            result.changed.setdefault(paper.pk, []).append(conflict.field)
        # Pinned for every field, authors and tags included: the curator has decided.
        paper.curator_edited_fields = sorted({*paper.curator_edited_fields, conflict.field})
        _record(result, conflict, resolution, user, now)
    pinned = {c.paper_id for c in result.done} if resolution != Resolution.MARKED else set()
    for paper_id in sorted(pinned):
        paper = papers[paper_id]
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
    fields = ["resolved_at", "resolved_by", "resolution"]
    ImportConflict.objects.bulk_update(result.done, fields)  # query: record the choices
    result.settled = len(result.done)
    return result


def _refusal(conflict: ImportConflict, paper: Paper, newest_id: int) -> Refusal | None:
    """Why a choice on the conflict may not be written, None when it may."""
    name = conflict.field
    if newest_id != conflict.pk or conflict.resolution == Resolution.SUPERSEDED:
        newer = newest_id if newest_id != conflict.pk else None
        return Refusal(conflict.pk, paper.pk, _changed_since(name), True, newer)
    if name not in VALUE_FIELDS and (name not in LIST_FIELDS or not _kept_as_lists(conflict)):
        return Refusal(
            conflict.pk,
            paper.pk,
            f"recorded without the {name} as a list, so they cannot be compared or rewritten "
            f"from their names: edit the {name} on the paper's page, then mark the conflict "
            "resolved",
        )
    if not still_holds(conflict, paper):
        return Refusal(conflict.pk, paper.pk, _changed_since(name), True)
    return None


def _kept_as_lists(conflict: ImportConflict) -> bool:
    """Whether an author list or tags conflict has the structured values settling compares and
    writes: both lists, or for tags the incoming ones (a curator's tags conflict lists only
    those the import could not add)."""
    if conflict.field == "tags":
        return conflict.incoming_data is not None
    return conflict.previous_data is not None and conflict.incoming_data is not None


def _changed_since(name: str) -> str:
    return f"the {name} changed since this conflict was listed, so nothing was written."


def _record(
    result: Settled, conflict: ImportConflict, resolution: str, user: User | None, now
) -> None:
    conflict.resolved_at, conflict.resolved_by, conflict.resolution = now, user, resolution
    result.done.append(conflict)


def _locked_papers(paper_ids: Iterable[int]) -> dict[int, Paper]:
    papers: dict[int, Paper] = {}
    for chunk in chunks(sorted(paper_ids)):  # query: the papers, locked in id order
        locked = Paper.objects.select_for_update().filter(pk__in=chunk).order_by("pk")
        papers.update((paper.pk, paper) for paper in locked)
    return papers


def _value_text(paper: Paper, name: str) -> str:
    """A field's value as a conflict holds it."""
    if name == "year":
        return str(paper.year or "")
    return getattr(paper, name) or ""


def _has_any_tag(paper: Paper, data: list) -> bool:
    """Whether the paper has any of the tags a structured value names (a merged spelling
    means its kept tag); a name no tag has yet is one the paper lacks."""
    tags = [tag_service.tag_named(entry["kind"], entry["name"]) for entry in data]
    tag_ids = [tag.pk for tag in tags if tag is not None]
    return paper.paper_tags.filter(tag_id__in=tag_ids).exists()


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


def _set_value(paper: Paper, name: str, value: str) -> None:
    if name == "year":
        paper.year = int(value) if value.strip().isdigit() else None
        return
    setattr(paper, name, value)
    if name == "abstract":
        paper.abstract_fingerprint = abstract_fingerprint(value) if value else ""
