"""A lab's Zotero group library, connected by a curator, and what its sync made here.

The sync (zotero.pull) remembers each Zotero object it brought in, so that a change or a
deletion at Zotero undoes exactly what the sync made: the lab tags it added, the list items of
its lists, the notes of its member. Catalogue papers are never deleted by it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotations.models import Note, ReadingList
from operations.claims import Claimable
from papers.models import Paper
from zotero.limits import MAX_KEY


class Library(Claimable):
    """A Zotero group library the site pulls from (one claimed sync at a time)."""

    group_id = models.PositiveBigIntegerField("Zotero group id", unique=True)
    # Empty: settings.ZOTERO_API_KEY. Never shown back (the admin's form leaves it blank).
    api_key = models.CharField(max_length=100, blank=True)
    # Owns the lists, notes and lab tags the sync makes: a member account for the library.
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="zotero_libraries"
    )
    # The library version of the last pull that committed whole (0: never pulled).
    version = models.PositiveBigIntegerField(default=0, editable=False)
    enabled = models.BooleanField(default=True)
    last_pulled_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_outcome = models.CharField(max_length=500, blank=True, editable=False)

    class Meta:
        ordering = ["group_id"]
        verbose_name = "Zotero group library"

    def __str__(self) -> str:
        return f"Zotero group {self.group_id}"

    @property
    def source(self) -> str:
        """The import history's name for what this library supplied (the three-way merge's)."""
        return f"zotero:{self.group_id}"

    def key(self) -> str:
        return self.api_key or settings.ZOTERO_API_KEY


class Item(models.Model):
    """A Zotero item the sync has seen: a paper's (with its tags and collections as last
    pulled), a child note's (with the note it became) or an attachment's."""

    library = models.ForeignKey(Library, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=MAX_KEY)
    item_type = models.CharField(max_length=40)
    parent_key = models.CharField(max_length=MAX_KEY, blank=True)
    version = models.PositiveBigIntegerField(default=0)
    # The item's `data` as Zotero last gave it: an attachment arriving later rebuilds its
    # parent's record from it.
    data = models.JSONField(default=dict)
    paper = models.ForeignKey(Paper, on_delete=models.SET_NULL, null=True, blank=True)
    note = models.ForeignKey(Note, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["library", "key"], name="zotero_item_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.item_type} {self.key}"


class Collection(models.Model):
    """A Zotero collection and the lab list it became."""

    library = models.ForeignKey(Library, on_delete=models.CASCADE, related_name="collections")
    key = models.CharField(max_length=MAX_KEY)
    version = models.PositiveBigIntegerField(default=0)
    name = models.CharField(max_length=255)
    reading_list = models.ForeignKey(ReadingList, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["library", "key"], name="zotero_collection_unique_key"),
        ]

    def __str__(self) -> str:
        return self.name
