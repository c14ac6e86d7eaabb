"""Reviews of an import, stored after its papers: one row per (source, note id)."""

from __future__ import annotations

from collections.abc import Sequence

from papers.importing.bulk_rows import (
    IN_CHUNK,
    by_kind_in_chunks,
    chunks,
)
from papers.importing.records import ReviewRecord
from papers.importing.report import Report
from papers.importing.sources import (
    source_name,
)
from papers.models import (
    MergedPaper,
    Paper,
    Review,
)
from papers.querysets import identifier_in

_REVIEW_FIELDS = (
    "paper_id",
    "kind",
    "rating",
    "confidence",
    "rating_label",
    "confidence_label",
    "decision",
    "texts",
    "visibility",
    "readers",
    "reviewer",
    "created",
    "modified",
)


def load_reviews(
    reviews: Sequence[ReviewRecord], report: Report, *, source: str | None = None
) -> None:
    """Store the import's reviews, after its papers: one row per (source, note id), so a
    re-import adds nothing twice and updates in place what changed (texts, scores, readers);
    then the review summary of every paper whose reviews changed
    (Review.objects.refresh_summaries). A review whose forum is neither in the import nor in
    the catalogue is counted in the report and skipped: a saved
    forum dump often holds replies to submissions that were not exported with it. No query
    when there are no reviews; otherwise a handful per IN_CHUNK reviews.
    """
    if not reviews:
        return
    papers: dict[str, int] = {}
    for chunk in chunks(sorted({r.forum_id for r in reviews})):  # query: papers by forum id
        papers.update(
            Paper.objects.filter(identifier_in("forum_id", chunk)).values_list("forum_id", "pk")
        )
    if any(r.forum_id not in papers for r in reviews) and MergedPaper.objects.exists():
        missing = sorted({r.forum_id for r in reviews} - papers.keys())
        for chunk in chunks(missing):  # query: papers that merged papers were folded into
            rows = MergedPaper.objects.filter(forum_id__in=chunk).order_by("merged_at", "pk")
            papers.update(rows.values_list("forum_id", "into_id"))
    wanted: dict[tuple[str, str], tuple[ReviewRecord, int]] = {}
    for review in reviews:
        paper_id = papers.get(review.forum_id)
        if paper_id is None:
            report.for_file(review.source).reviews_unmatched += 1
        else:  # the same note in a later file of the same source: the later one wins
            wanted[(source or source_name(review.source), review.note_id)] = (review, paper_id)
    stored: dict[tuple[str, str], Review] = {}
    # query: the reviews these notes stored before
    for rows in by_kind_in_chunks(Review, "note_id", list(wanted), kind_field="source"):
        stored.update(((row.source, row.note_id), row) for row in rows)
    new, changed, touched = [], [], set()
    for (name, note_id), (review, paper_id) in wanted.items():
        values = dict(zip(_REVIEW_FIELDS, (paper_id, *_review_values(review)), strict=True))
        counts = report.for_file(review.source)
        row = stored.get((name, note_id))
        if row is None:
            new.append(Review(source=name, note_id=note_id, **values))
            counts.reviews_created += 1
        elif any(getattr(row, key) != value for key, value in values.items()):
            touched.add(row.paper_id)
            for key, value in values.items():
                setattr(row, key, value)
            changed.append(row)
            counts.reviews_updated += 1
        else:
            counts.reviews_unchanged += 1
            continue
        touched.add(paper_id)
    Review.objects.bulk_create(new, batch_size=IN_CHUNK)  # query: insert new reviews
    # query: update changed reviews
    Review.objects.bulk_update(changed, ["paper", *_REVIEW_FIELDS[1:]], batch_size=IN_CHUNK)
    Review.objects.refresh_summaries(touched)


def _review_values(review: ReviewRecord) -> tuple:
    """The row's values (but its paper) in _REVIEW_FIELDS' order, as the row reads them back
    (JSON holds lists, not tuples)."""
    visibility = Review.Visibility.PUBLIC if review.public else Review.Visibility.MEMBERS
    return (
        review.kind,
        review.rating,
        review.confidence,
        review.rating_label,
        review.confidence_label,
        review.decision,
        [list(pair) for pair in review.texts],
        str(visibility),
        list(review.readers),
        review.reviewer,
        review.created,
        review.modified,
    )
