"""Saved searches (a list page's URL state with a name) and each member's digest e-mail state."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from operations.claims import Claimable

MAX_NAME = 100
# A saved query is the list page's normalised query string: search text (200 characters at
# most) and up to 20 values per facet fit well within this.
MAX_QUERY = 4_000


def new_token() -> str:
    return secrets.token_urlsafe(32)


class SavedSearch(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches"
    )
    name = models.CharField(max_length=MAX_NAME)
    # The list page's query string, normalised (alerts.queries.normalise_query): no page,
    # typing or display parameters, unknown facet values dropped.
    query = models.CharField(max_length=MAX_QUERY, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # "N new since you last looked" counts papers created after this; opening the search resets it.
    last_seen_at = models.DateTimeField(default=timezone.now)
    # Whether the digest e-mail lists this search's new papers.
    alert = models.BooleanField("e-mail alert", default=True)

    class Meta:
        ordering = [Lower("name"), "pk"]
        verbose_name_plural = "saved searches"
        constraints = [
            models.UniqueConstraint(
                "owner", Lower("name"), name="alerts_savedsearch_unique_owner_name"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("alerts:open", args=[self.pk])

    def is_private_from(self, user) -> bool:
        return self.owner_id != user.pk

    @property
    def description(self) -> str:
        """The search in words: “diffusion”; venue: iclr-2024; sorted by title."""
        data = QueryDict(self.query)
        parts = [f"“{data['q']}”"] if data.get("q") else []
        parts += [
            f"{name}: {', '.join(values)}"
            for name, values in data.lists()
            if name not in ("q", "sort")
        ]
        if data.get("sort"):
            parts.append(f"sorted by {data['sort']}")
        return "; ".join(parts) or "all papers"

    @property
    def list_url(self) -> str:
        path = reverse("papers:list")
        return f"{path}?{self.query}" if self.query else path


class DigestState(Claimable):
    """What the digest e-mail already told a member, and the link that stops it. A running
    `send_digests` holds the member's state while it builds and sends their digest
    (held_by, held_until: alerts.digest.claim), so two runs at once, on one server or two,
    never mail it twice."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_state"
    )
    # The moment the last run looked (sent or not): the next digest lists papers created after.
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    # Recommended papers already mailed, so a digest never repeats them.
    recommended_ids = models.JSONField(default=list, blank=True)
    # The unsubscribe link's secret: random, stored, so it works without logging in; a new one
    # on each resubscription, so only the newest digests' links work.
    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"digest of {self.user}"

    def is_private_from(self, user) -> bool:
        return self.user_id != user.pk

    @property
    def unsubscribe_url(self) -> str:
        return settings.SITE_URL + reverse("alerts:unsubscribe", args=[self.token])
