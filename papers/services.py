"""Curation writes that touch several rows or models at once, each in one transaction."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from papers.models import Author, Authorship, Paper, SearchChange

# Names recorded in Paper.curator_edited_fields for the two inline-edited relations; the
# scalar fields are recorded under their own names.
AUTHORS_EDIT = "authors"
TAGS_EDIT = "tags"

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
        return (
            f"Merged {names} into {self.target.name}: {self.papers_moved} paper(s) moved, "
            f"{self.duplicates_removed} duplicate authorship(s) removed."
        )


@transaction.atomic
def merge_authors(*, target: Author, others: Iterable[Author]) -> MergeResult:
    """Give every paper of `others` to `target`, then delete `others`.

    A paper that listed two of the merged authors keeps one authorship, at the earliest
    position the merged authors held, and its remaining authors close the gap.
    """
    others = [author for author in others if author.pk != target.pk]
    result = MergeResult(target=target, merged_names=[author.name for author in others])
    if not others:
        return result
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
    Author.objects.filter(pk__in=other_ids).delete()
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
    """Apply an edited author list: swaps and reorders included, then renumber from 0.

    Changed rows are deleted and inserted again: the (paper, position) and (paper, author)
    constraints are checked row by row, so saving "A first, B second" over "B first, A second"
    in place would collide halfway.
    """
    changed = list(changed)
    removed_ids = [row.pk for row in deleted] + [row.pk for row in changed]
    Authorship.objects.filter(paper=paper, pk__in=removed_ids).delete()
    rows = [*changed, *added]
    for row in rows:
        row.pk = None
        row.paper = paper
    Authorship.objects.bulk_create(rows)
    renumber_authorships(paper_id=paper.pk)
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
