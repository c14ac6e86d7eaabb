"""What a reader sees of a paper's reviews (papers.models.Review): the selector the paper
page's reviews section uses (papers.templatetags.paper_reviews)."""

from __future__ import annotations

from papers.models import Review

# The decision first, then the meta-review that argues for it, then the reviews as written.
_KIND_ORDER: dict[str, int] = {
    Review.Kind.DECISION: 0,
    Review.Kind.META_REVIEW: 1,
    Review.Kind.REVIEW: 2,
}


def reviews_shown(paper_id: int, user) -> list[Review]:
    """The paper's reviews `user` may read (members-only ones to a logged-in member alone),
    the decision and meta-review first, then the reviews in the order they were written. A
    note that two sources both stored (a venue fetch and a saved file) is shown once, as last
    stored. One query."""
    latest: dict[str, Review] = {}
    for review in Review.objects.visible_to(user).filter(paper_id=paper_id).order_by("pk"):
        latest[review.note_id] = review
    return sorted(latest.values(), key=_place)


def _place(review: Review) -> tuple:
    written = review.created.timestamp() if review.created else float("inf")  # undated last
    return (_KIND_ORDER.get(review.kind, len(_KIND_ORDER)), written, review.pk)
