"""A member's request for a paper by its link, fetched in the background (papers.link_tasks).
Imported by papers.models.

The request is the member's (only they see its page); two members asking for one paper while it
is being fetched each have a request, the later one following the first (`leader`), whose task
fetches it once for both."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from operations.claims import Claimable
from papers.text import MAX_DOI, MAX_TITLE

# The service each kind of identifier is fetched from, as members read it, by the values of
# papers.sources.identifiers.Kind (the paper's field each names; not imported: the models
# would import the querysets through it).
SERVICE_NAMES = {"arxiv_id": "arXiv", "forum_id": "OpenReview", "doi": "Crossref"}


class LinkFetch(Claimable):
    """A paper a member asked for by its link: queued, fetched and added by a worker (which
    holds it with a claim, operations.claims), or failed with a message for the member."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for a worker"
        RUNNING = "running", "being fetched"
        DONE = "done", "added"
        FAILED = "failed", "failed"

    PENDING = (Status.QUEUED, Status.RUNNING)

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="link_fetches"
    )
    kind = models.CharField(max_length=10, choices=list(SERVICE_NAMES.items()))
    value = models.CharField(max_length=MAX_DOI)  # normalised as the catalogue stores it
    link = models.CharField(max_length=MAX_TITLE)  # as the member pasted it: "try again" has it
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    paper = models.ForeignKey(
        "papers.Paper", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    message = models.TextField(blank=True)  # why it failed, for the member
    # The request whose task fetches the paper for this one too (asked while that was pending).
    leader = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="followers"
    )
    # The background task's result id (django-tasks): its status tells a worker's death.
    task_id = models.CharField(max_length=64, blank=True)
    # How the import history names it ("link (ann)").
    invoked_by = models.CharField(max_length=200, blank=True)
    # Where the member goes once the paper is added (a reading list's page); blank: the paper.
    return_to = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "paper fetched by link"
        verbose_name_plural = "papers fetched by link"
        indexes = [
            # ask_for_link: the pending request a new one for the same paper follows.
            models.Index(
                fields=["kind", "value"],
                condition=Q(status__in=["queued", "running"], leader=None),
                name="papers_linkfetch_pending",
            )
        ]

    def __str__(self) -> str:
        # Not the identifier: what a member looks up is theirs (admin lists these rows, e.g.
        # on a user's delete page).
        return f"Fetch {self.pk} from {self.service}"

    def get_absolute_url(self) -> str:
        return reverse("papers:link-fetch", args=[self.pk])

    @property
    def service(self) -> str:
        return SERVICE_NAMES[self.kind]
