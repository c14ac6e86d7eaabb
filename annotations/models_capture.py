"""A member's one-click capture from another site (annotations.capture): where their
bookmarklet puts papers, its key, and each capture, so that its confirmation can say what it
did and undo exactly that. Imported by annotations.models; the models are named by string so
that this module imports neither it nor papers.models."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class CaptureSettings(models.Model):
    """The member's capture target and the hash of their bookmarklet's key (never the key: it
    is shown once, when made, inside the bookmarklet)."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="capture_settings"
    )
    # Where captured papers go; null: the member's default list, else their first.
    reading_list = models.ForeignKey(
        "annotations.ReadingList",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # SHA-256 of the one-click bookmarklet's key (a 256-bit random token); blank: none, or revoked.
    key_hash = models.CharField(max_length=64, blank=True)
    key_made_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "capture settings"

    def __str__(self) -> str:
        return f"Capture settings of {self.member}"


class Capture(models.Model):
    """One paper captured onto one of the member's lists: the item it added (`item`, or, for
    a paper fetched in the background, the item its fetch's settlement added since
    `created_at`), or nothing when the paper was on the list already."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="captures"
    )
    reading_list = models.ForeignKey(
        "annotations.ReadingList", on_delete=models.CASCADE, related_name="+"
    )
    paper = models.ForeignKey(
        "papers.Paper", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    link_fetch = models.ForeignKey(
        "papers.LinkFetch", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    item = models.ForeignKey(
        "annotations.ReadingListItem",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    already_listed = models.BooleanField(default=False)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["member", "-created_at"], name="annotations_capture_member")
        ]

    def __str__(self) -> str:
        return f"Capture {self.pk} by {self.member}"

    def get_absolute_url(self) -> str:
        return reverse("annotations:capture-result", args=[self.pk])
