"""Import conflicts: a value an import could not simply apply, listed once for the curators
and settled in admin (papers.conflicts). Imported by papers.models; it names the catalogue's
models by their labels, so it needs none of them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from papers.querysets import ImportConflictQuerySet
from papers.text import MAX_SOURCE_NAME


class ImportConflict(models.Model):
    """A value an import could not simply apply, listed once for the curators."""

    class Kind(models.TextChoices):
        CURATED = "curated", "Curator's value kept"
        SOURCES = "sources", "Sources disagree"

    paper = models.ForeignKey(
        "papers.Paper", on_delete=models.CASCADE, related_name="import_conflicts"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    field = models.CharField(max_length=20)
    # The file (and line) whose value is involved.
    source = models.CharField(max_length=MAX_SOURCE_NAME)
    line = models.PositiveIntegerField(null=True, blank=True)
    # CURATED: the curator's value (kept) and the file's (not applied).
    # SOURCES: the value another source had supplied (replaced) and this file's (applied).
    previous = models.TextField(blank=True)
    incoming = models.TextField(blank=True)
    # The two values of an author list or tags as an import reads them, for settling the
    # conflict (papers.conflicts): authors as [{"name", "profile_id" when known}] in order,
    # tags as [{"kind", "name"}]. Null for scalar fields, whose text above is the value, and
    # for conflicts recorded before these were kept (those are settled on the paper's page).
    previous_data = models.JSONField(null=True, blank=True)
    incoming_data = models.JSONField(null=True, blank=True)
    import_run = models.ForeignKey(
        "papers.ImportRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="conflicts_found",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Resolution(models.TextChoices):
        KEPT = "kept", "Kept current"
        TAKEN = "taken", "Took incoming"
        MARKED = "marked", "Marked resolved"
        SUPERSEDED = "superseded", "Superseded by a newer conflict"

    # How and by whom it was settled (papers.conflicts); blank while open, and for conflicts
    # settled before this was recorded.
    resolution = models.CharField(max_length=12, choices=Resolution.choices, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # SUPERSEDED: the newer conflict about the field that closed this one (papers.conflicts).
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = ImportConflictQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["-created_at"],
                condition=Q(resolved_at__isnull=True),
                name="papers_conflict_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.field} of paper {self.paper_id}"
