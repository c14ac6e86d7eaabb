"""Precomputed "Recommended for me" rows, written by `manage.py compute_recommendations`.

The page only reads them: training a model per member is too slow for a request.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from papers.models import Paper

# A member with fewer papers than this saved, noted or tagged gets no recommendations
# (recommendations.training; the page says so; docs/recommendations.md). Here, not in
# training, so that the page does not import numpy, scipy and scikit-learn to read it.
MIN_POSITIVES = 2


class Recommendation(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recommendations"
    )
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="recommendations")
    # The member's classifier's decision value: only comparable among one member's rows.
    score = models.FloatField()
    # Why, as shown on the page: {"terms": ["diffusion", "score matching"],
    # "lists": [{"name": "Reading group", "count": 3}]}; only the member's own lists are named.
    reasons = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "paper"], name="recommendations_one_per_user_paper"
            ),
        ]
        indexes = [
            # The page and recommended_for read one member's rows, best first.
            models.Index(fields=["user", "-score"], name="recommendations_user_score"),
        ]

    def __str__(self) -> str:
        return f"{self.paper} for {self.user} ({self.score:.3f})"

    def is_private_from(self, user) -> bool:
        return self.user_id != user.pk

    @property
    def terms(self) -> list[str]:
        return list(self.reasons.get("terms", []))

    @property
    def lists(self) -> list[dict]:
        return list(self.reasons.get("lists", []))

    @property
    def explanation(self) -> str:
        """ "because of: diffusion, score matching; like 3 papers in Reading group"."""
        parts = []
        if self.terms:
            parts.append("because of: " + ", ".join(self.terms))
        for entry in self.lists:
            count = entry.get("count", 0)
            noun = "paper" if count == 1 else "papers"
            parts.append(f"like {count} {noun} in {entry.get('name', '')}")
        return "; ".join(parts)
