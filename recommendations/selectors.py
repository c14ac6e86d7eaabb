"""Reads of precomputed recommendations, for the pages and for other apps (the digest e-mail).

Rows are written by `recommendations.training` through `manage.py compute_recommendations`;
nothing here computes anything.
"""

from __future__ import annotations

from recommendations.models import Recommendation


def recommended_for(user, limit: int = 10) -> list[Recommendation]:
    """The member's best `limit` recommendations, best first, each with its `paper` loaded.

    One query. Empty for an anonymous user, for a member with fewer than
    `training.MIN_POSITIVES` saved, noted or tagged papers, and before the command first ran.
    Each row's `explanation` is a ready sentence ("because of: diffusion; like 3 papers in
    Reading group") naming only the member's own lists, so it is safe to show or mail to them.
    """
    if not getattr(user, "is_authenticated", False):
        return []
    return list(
        Recommendation.objects.filter(user=user)
        .select_related("paper")
        .order_by("-score", "paper_id")[:limit]
    )
