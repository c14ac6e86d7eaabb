"""Curation writes that touch several rows or models at once, each in one transaction."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.admin.utils import model_ngettext
from django.db import models, transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import ngettext

from papers.duplicates import DUPLICATE_REASON_PREFIX
from papers.importing.sources import RELEASED
from papers.models import (
    Author,
    Authorship,
    MergedAuthor,
    MergedPaper,
    Paper,
    SearchChange,
    SourceRecord,
)
from papers.signals import papers_merging

# Names recorded in Paper.curator_edited_fields for the two inline-edited relations; the
# scalar fields are recorded under their own names.
AUTHORS_EDIT = "authors"
TAGS_EDIT = "tags"

# Fields a kept paper takes from a merged one when its own is blank, in the order given.
MERGE_FILLED_FIELDS = (
    "title",
    "abstract",
    "forum_id",
    "forum_url",
    "pdf_url",
    "arxiv_id",
    "doi",
    "year",
    "publication_type",
)

# Rows are parked above this position while a paper's authors are renumbered: the
# (paper, position) constraint is checked row by row on PostgreSQL, so a swap needs room.
_PARKING_OFFSET = 16_000


@dataclass
class MergeResult:
    target: Author
    merged_names: list[str] = field(default_factory=list)
    papers_moved: int = 0  # authorships handed over to the target
    duplicates_removed: int = 0  # authorships dropped because the target was already listed

    def summary(self) -> str:
        names = ", ".join(self.merged_names) or "no other author"
        moved = ngettext("%(count)d paper moved", "%(count)d papers moved", self.papers_moved) % {
            "count": self.papers_moved
        }
        removed = ngettext(
            "%(count)d duplicate authorship removed",
            "%(count)d duplicate authorships removed",
            self.duplicates_removed,
        ) % {"count": self.duplicates_removed}
        return f"Merged {names} into {self.target.name}: {moved}, {removed}."


class TwoProfiles(Exception):
    """Authors with different OpenReview profile ids: two people, who are not merged."""


def profiles_of(authors: Iterable[Author]) -> list[str]:
    """The OpenReview profile ids these authors have, each once, in order."""
    return list(dict.fromkeys(author.openreview_id for author in authors if author.openreview_id))


@transaction.atomic
def merge_authors(*, target: Author, others: Iterable[Author]) -> MergeResult:
    """Give every paper of `others` to `target`, then delete `others`, remembering their ids
    (MergedAuthor: their old addresses lead to the target); the target keeps the
    OpenReview profile id one of them had. Raises TwoProfiles, merging nothing, when two of
    them have different profile ids: imports would split them again by their ids.

    A paper that listed two of the merged authors keeps one authorship, at the earliest
    position the merged authors held, and its remaining authors close the gap.
    """
    others = [author for author in others if author.pk != target.pk]
    result = MergeResult(target=target, merged_names=[author.name for author in others])
    if not others:
        return result
    profiles = profiles_of([target, *others])
    if len(profiles) > 1:
        raise TwoProfiles(
            f"These authors have different OpenReview profiles ({', '.join(profiles)}): "
            "they are different people, and were not merged."
        )
    other_ids = [author.pk for author in others]

    by_paper: dict[int, list[Authorship]] = defaultdict(list)
    rows = (
        Authorship.objects.select_for_update()
        .filter(author_id__in=[target.pk, *other_ids])
        .order_by("paper_id", "position", "pk")
    )
    for row in rows:
        by_paper[row.paper_id].append(row)

    to_delete: list[int] = []
    to_retarget: list[int] = []
    papers_with_gaps: list[int] = []
    changed_papers: list[int] = []
    for paper_id, group in by_paper.items():
        keep, *dropped = group  # the earliest position wins
        if dropped:
            to_delete.extend(row.pk for row in dropped)
            papers_with_gaps.append(paper_id)
        if keep.author_id != target.pk:
            to_retarget.append(keep.pk)
        if dropped or keep.author_id != target.pk:
            changed_papers.append(paper_id)

    # Delete first: the kept row may take over the (paper, author) slot of a dropped one.
    Authorship.objects.filter(pk__in=to_delete).delete()
    Authorship.objects.filter(pk__in=to_retarget).update(author=target)
    # Their ids stand for the target from now on (papers.identity: their pages, saved
    # searches, filters), and so do the ids of authors merged into them before.
    MergedAuthor.objects.filter(into_id__in=other_ids).update(into=target)
    MergedAuthor.objects.bulk_create(
        MergedAuthor(author_id=author.pk, name=author.name, into=target) for author in others
    )
    Author.objects.filter(pk__in=other_ids).delete()
    if profiles and target.openreview_id != profiles[0]:  # freed by the delete
        target.openreview_id = profiles[0]
        Author.objects.filter(pk=target.pk).update(openreview_id=target.openreview_id)
    for paper_id in papers_with_gaps:
        renumber_authorships(paper_id=paper_id)
    refresh_author_names(paper_ids=changed_papers)
    # The merge is a curator's decision about these author lists: a re-import that still
    # spells the old name must report a conflict rather than split the author again.
    record_curator_edit(paper_ids=changed_papers, field_name=AUTHORS_EDIT)

    result.papers_moved = len(to_retarget)
    result.duplicates_removed = len(to_delete)
    return result


@transaction.atomic
def rename_author(*, author: Author, name: str) -> None:
    """Rename an author everywhere: the denormalised lists and the import protection."""
    author.name = name
    author.save()
    paper_ids = list(author.authorships.values_list("paper_id", flat=True))
    refresh_author_names(paper_ids=paper_ids)
    record_curator_edit(paper_ids=paper_ids, field_name=AUTHORS_EDIT)


def record_curator_edit(*, paper_ids: Iterable[int], field_name: str) -> None:
    """Add a field name to the curator-edited list of several papers."""
    papers = list(Paper.objects.filter(pk__in=list(paper_ids)).only("curator_edited_fields"))
    for paper in papers:
        paper.curator_edited_fields = sorted({*paper.curator_edited_fields, field_name})
    Paper.objects.bulk_update(papers, ["curator_edited_fields"], batch_size=500)


@transaction.atomic
def renumber_authorships(*, paper_id: int) -> None:
    """Number a paper's authors 0, 1, 2... in their current order (position, then id)."""
    rows = list(Authorship.objects.filter(paper_id=paper_id).order_by("position", "pk"))
    if all(row.position == index for index, row in enumerate(rows)):
        return
    Authorship.objects.filter(paper_id=paper_id).update(position=F("position") + _PARKING_OFFSET)
    for index, row in enumerate(rows):
        row.position = index
    Authorship.objects.bulk_update(rows, ["position"])


@transaction.atomic
def save_authorships(
    *,
    paper: Paper,
    added: Iterable[Authorship] = (),
    changed: Iterable[Authorship] = (),
    deleted: Iterable[Authorship] = (),
) -> None:
    """Apply an edited author list, then number it from 0.

    A row added or changed goes to the place its position names (0 is the first author), and
    the untouched rows close up around it: a new author typed in at 2 becomes the third and
    the third moves down, rather than the curator renumbering every later row by hand.
    Placed rows are inserted in order of their positions (form order on a tie).

    Changed rows are deleted and inserted again: the (paper, position) and (paper, author)
    constraints are checked row by row, so saving "A first, B second" over "B first, A second"
    in place would collide halfway.
    """
    changed = list(changed)
    removed_ids = [row.pk for row in deleted] + [row.pk for row in changed]
    Authorship.objects.filter(paper=paper, pk__in=removed_ids).delete()
    placed = sorted([*changed, *added], key=lambda row: row.position)  # stable: form order
    staying = list(Authorship.objects.filter(paper=paper).order_by("position", "pk"))
    order = list(staying)
    for row in placed:
        order.insert(min(row.position, len(order)), row)
    for index, row in enumerate(order):
        row.position = index
    for row in placed:
        row.pk = None
        row.paper = paper
    # The staying rows leave the numbers 0..n free before the placed rows take theirs.
    Authorship.objects.filter(paper=paper).update(position=F("position") + _PARKING_OFFSET)
    Authorship.objects.bulk_create(placed)
    Authorship.objects.bulk_update(staying, ["position"])
    refresh_author_names(paper_ids=[paper.pk])


def refresh_author_names(*, paper_ids: Iterable[int]) -> None:
    """Recompute the denormalised author list of several papers in two queries."""
    paper_ids = list(paper_ids)
    if not paper_ids:
        return
    names: dict[int, list[str]] = {paper_id: [] for paper_id in paper_ids}
    rows = (
        Authorship.objects.filter(paper_id__in=paper_ids)
        .order_by("paper_id", "position")
        .values_list("paper_id", "author__name")
    )
    for paper_id, name in rows:
        names[paper_id].append(name)
    papers = [Paper(pk=paper_id, author_names=", ".join(n)) for paper_id, n in names.items()]
    Paper.objects.bulk_update(papers, ["author_names"], batch_size=500)
    # Every caller changed these author lists (rename, merge, admin inline): bulk writes send
    # no signals, so the search index learns of them here, in the caller's transaction.
    SearchChange.objects.record(paper_ids)


@transaction.atomic
def mark_reviewed(*, papers: QuerySet[Paper]) -> int:
    """Take papers out of the curation queue and stamp when a curator reviewed them."""
    now = timezone.now()
    return papers.update(needs_curation=False, curation_reason="", reviewed_at=now, updated_at=now)


@transaction.atomic
def forget_curator_edits(*, papers: QuerySet[Paper]) -> int:
    """Let imports write the fields curators edited on these papers again: the next import of
    each source applies its value for them, even one it supplied before."""
    released = []
    curated = dict(papers.values_list("pk", "curator_edited_fields"))
    for record in SourceRecord.objects.filter(paper__in=curated):
        record.digest = ""  # not "unchanged": the record is merged again
        record.fields.update(dict.fromkeys(curated[record.paper_id], RELEASED))
        released.append(record)
    SourceRecord.objects.bulk_update(released, ["digest", "fields"])
    return papers.update(curator_edited_fields=[])


class MergeRefused(Exception):
    """A merge would have to drop rows holding someone's text; nothing was changed."""


@dataclass
class PaperMergeResult:
    target: Paper
    merged_ids: list[int] = field(default_factory=list)
    filled: dict[str, int] = field(default_factory=dict)  # field name -> paper it came from
    authors_from: int | None = None  # the merged paper whose authors the target took
    # Rows handed over, and exact duplicates left behind, by model: the summary names each
    # model in the singular or plural its count needs ("1 comment", "2 comments"). Models
    # whose rows can be private (can_be_private: notes, reading-list items...) are counted
    # here but never in the summary, which the curator reads and the paper's history keeps.
    moved: Counter[type[models.Model]] = field(default_factory=Counter)
    dropped: Counter[type[models.Model]] = field(default_factory=Counter)

    def summary(self) -> str:
        merged = ", ".join(f"#{pk}" for pk in self.merged_ids) or "no other paper"
        parts = [f"Merged {merged} into #{self.target.pk} “{self.target.display_title}”"]
        if self.filled:
            parts.append(
                "filled " + ", ".join(f"{name} from #{pk}" for name, pk in self.filled.items())
            )
        if self.authors_from is not None:
            parts.append(f"took the authors of #{self.authors_from}")
        # Unary + drops the relations with nothing moved or dropped.
        for verb, counts in (("moved", +self.moved), ("dropped as duplicates", +self.dropped)):
            shown = [(model, n) for model, n in counts.items() if not can_be_private(model)]
            if shown:
                listed = ", ".join(
                    f"{n} {model_ngettext(model._meta, n)}"
                    for model, n in sorted(shown, key=_plural_name)
                )
                parts.append(f"{verb} {listed}")
        # The same words whether or not any private row moved: even "some notes moved" would
        # tell the curator that members annotated the paper.
        private = PRIVATE_ANNOTATIONS_MOVED % {"kinds": ", ".join(private_annotation_kinds())}
        return "; ".join(parts) + ". " + private


# Said after every paper merge, in place of counts of what members keep to themselves.
PRIVATE_ANNOTATIONS_MOVED = (
    "Members' private annotations (%(kinds)s), if any, went to the kept paper too; "
    "they are not counted."
)


def can_be_private(model: type[models.Model]) -> bool:
    """Whether rows of `model` can be private to a member: it defines is_private_from, as
    papers.admin.deletion says (notes, reading-list items, recommendations), which papers
    learns with no import of the apps that hold them. Curators see no count of such rows."""
    return hasattr(model, "is_private_from")


def private_annotation_kinds() -> list[str]:
    """The plural names of the models pointing at a paper whose rows can be private: what a
    merge moves without counting it (the same list whatever the papers hold)."""
    return sorted(
        str(relation.related_model._meta.verbose_name_plural)
        for relation in relations_to_paper()
        if can_be_private(relation.related_model)
    )


def _plural_name(count: tuple[type[models.Model], int]) -> str:
    return str(count[0]._meta.verbose_name_plural)


@transaction.atomic
def merge_papers(*, target: Paper, others: Iterable[Paper]) -> PaperMergeResult:
    """Fold duplicate papers into `target`, then delete them, remembering their identities.

    The target keeps its own fields and authors, taking from the others only what it lacks.
    Every row of any model that points at a merged paper (tags, notes, reading-list items,
    comments, earlier merges...) moves to the target, found through the model metadata so
    that the catalogue needs no knowledge of the apps that annotate it.
    """
    target = Paper.objects.select_for_update().get(pk=target.pk)
    others = list(
        Paper.objects.select_for_update()
        .filter(pk__in=[p.pk for p in others if p.pk != target.pk])
        .order_by("pk")
    )
    result = PaperMergeResult(target=target, merged_ids=[p.pk for p in others])
    if not others:
        return result
    other_ids = result.merged_ids

    MergedPaper.objects.bulk_create(
        MergedPaper(
            paper_id=p.pk,
            forum_id=p.forum_id,
            abstract_fingerprint=p.abstract_fingerprint,
            title=p.title,
            into=target,
        )
        for p in others
    )
    _fill_blank_fields(target, others, result)
    if not target.authorships.exists():
        donor = next((p for p in others if p.authorships.exists()), None)
        if donor is not None:
            Authorship.objects.filter(paper=donor).update(paper=target)
            result.authors_from = donor.pk
    for relation in relations_to_paper():
        if relation.related_model is not Authorship:
            _move_rows(relation, target, other_ids, result)
    papers_merging.send(Paper, target=target, other_ids=other_ids, result=result)

    # Deleting records the merged ids for the search index (papers.signals); the forum ids
    # the target takes over are free only once the others are gone.
    Paper.objects.filter(pk__in=other_ids).delete()
    target.save()
    refresh_author_names(paper_ids=[target.pk])
    return result


def _fill_blank_fields(target: Paper, others: list[Paper], result: PaperMergeResult) -> None:
    curated = set(target.curator_edited_fields)
    for name in MERGE_FILLED_FIELDS:
        if getattr(target, name):
            continue
        donor = next((p for p in others if getattr(p, name)), None)
        if donor is None:
            continue
        setattr(target, name, getattr(donor, name))
        if name == "abstract":
            target.abstract_fingerprint = donor.abstract_fingerprint
        if name in donor.curator_edited_fields:
            curated.add(name)
        result.filled[name] = donor.pk
    target.curator_edited_fields = sorted(curated)
    if target.curation_reason.startswith(DUPLICATE_REASON_PREFIX):
        target.needs_curation = False
        target.curation_reason = ""


def relations_to_paper() -> list:
    """Every foreign key to Paper, from any app, hidden ones (related_name="+") included.

    One-to-one keys are not among them: a paper has at most one of such a row, so the app
    that holds it decides, on papers.signals.papers_merging, what a merge does with the merged
    papers' (pdfs.merging: the stored PDF moves to a kept paper without one, or is set aside
    beside its own). A row no receiver takes is deleted with its paper.
    """
    return [
        rel
        for rel in Paper._meta.get_fields(include_hidden=True)
        if rel.one_to_many and rel.auto_created and not rel.concrete
    ]


def _unique_keys(model: type[models.Model], fk_name: str) -> list[tuple[str, ...]]:
    """The other fields of each unique constraint that includes the foreign key to Paper
    (conditional and expression constraints aside: none of those involve a paper)."""
    field_sets = [tuple(c.fields) for c in model._meta.total_unique_constraints]
    field_sets += [tuple(names) for names in model._meta.unique_together]
    return [tuple(f for f in names if f != fk_name) for names in field_sets if fk_name in names]


def _move_rows(relation, target: Paper, other_ids: list[int], result: PaperMergeResult) -> None:
    """Point the rows of one relation at `target`; a row that would break a unique constraint
    (the target's list already holds the paper, it already has the tag) stays behind, to be
    deleted with its paper. No such row holds text today (reading-list items, paper tags); one
    that did would be lost, so the merge is refused instead."""
    model, fk_name = relation.related_model, relation.field.name
    label = str(model._meta.verbose_name_plural)
    rows = model._default_manager.filter(**{f"{fk_name}__in": other_ids}).order_by("pk")
    keys = _unique_keys(model, fk_name)
    if not keys:
        result.moved[model] += rows.update(**{fk_name: target})
        return
    kept = model._default_manager.filter(**{fk_name: target})
    taken: list[dict[tuple, Any]] = [{} for _ in keys]
    for row in kept:
        for key, seen in zip(keys, taken, strict=True):
            seen[_key_of(row, key)] = row
    moving, staying = [], []
    for row in rows:
        row_keys = [_key_of(row, key) for key in keys]
        clashing = [seen[k] for k, seen in zip(row_keys, taken, strict=True) if k in seen]
        if clashing:
            staying.append(row)
            # The kept row takes what only the dropped one knew (a member's reading status).
            absorb = getattr(clashing[0], "absorb", None)
            if absorb is not None and absorb(row):
                clashing[0].save()
            continue
        for k, seen in zip(row_keys, taken, strict=True):
            seen[k] = row
        moving.append(row.pk)
    texts = [f.attname for f in model._meta.concrete_fields if isinstance(f, models.TextField)]
    if any(getattr(row, name) for row in staying for name in texts):
        raise MergeRefused(
            f"Some {label} of the merged papers clash with the kept paper's and hold text."
        )
    moved = model._default_manager.filter(pk__in=moving).update(**{fk_name: target})
    # Only what happened is reported: a relation with nothing to move or drop is left out.
    if moved:
        result.moved[model] += moved
    if staying:
        result.dropped[model] += len(staying)


def _key_of(row: Any, fields: tuple[str, ...]) -> tuple:
    return tuple(getattr(row, row._meta.get_field(name).attname) for name in fields)
