"""What a curator's merge leaves of the papers and authors it deleted: their identities, each
pointing at the record that took its place (merged tags are TagAlias, beside Tag). Read through
papers.identity; imported by papers.models, whose models these refer to by name. And the
merges a curator declined: spellings of tags the curation queue no longer suggests merging."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from papers.choices import TagKind
from papers.text import MAX_AUTHOR_NAME, MAX_FORUM_ID, MAX_TAG_NAME, MAX_TITLE


class MergedPaper(models.Model):
    """A paper a curator merged into another, kept by its identity: an import that brings its
    forum id (or, lacking one, its abstract) again updates the paper it was merged into."""

    # The deleted paper's id: its old URL redirects to `into` (papers.views.paper_detail).
    paper_id = models.BigIntegerField()
    forum_id = models.CharField(max_length=MAX_FORUM_ID, blank=True)
    abstract_fingerprint = models.CharField(max_length=64, blank=True)
    title = models.CharField(max_length=MAX_TITLE, blank=True)
    # Merging `into` later moves these rows on to its own kept paper.
    into = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="merged_papers")
    merged_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-merged_at", "-pk"]
        indexes = [
            # The importer looks forum ids and fingerprints up here when no paper has them.
            models.Index(fields=["forum_id"], name="papers_merged_forum_id"),
            models.Index(fields=["abstract_fingerprint"], name="papers_merged_fingerprint"),
        ]

    def __str__(self) -> str:
        return f"#{self.paper_id} merged into #{self.into_id}"


class MergedAuthor(models.Model):
    """An author a curator merged into another (papers.services.merge_authors): their old id
    stands for `into` wherever it arrives (their page's URL, the list page's author filter, a
    saved search, an export), through papers.identity."""

    # The deleted author's id. Ids are never reused (AUTOINCREMENT on SQLite, sequences on
    # PostgreSQL), so an id is either a living author's or a merged one's.
    author_id = models.BigIntegerField(unique=True)
    name = models.CharField(max_length=MAX_AUTHOR_NAME)  # the merged author's, for the admin
    # Merging `into` later moves these rows on to its own kept author; deleting `into` (not a
    # merge) deletes them, so the old ids then name nobody.
    into = models.ForeignKey(
        "papers.Author", on_delete=models.CASCADE, related_name="merged_authors"
    )
    merged_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-merged_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} (#{self.author_id}) merged into #{self.into_id}"


class DismissedTagVariant(models.Model):
    """Two spellings of tags a curator said are different things ("Dynamics" is not
    "Dynamic"): the curation queue stops suggesting their merge (papers.tags.variants). By
    tag key, the tag's identity, so the pair stays dismissed whatever the tags' ids; a tag
    renamed to another key is a new spelling, to be looked at again."""

    kind = models.CharField(max_length=10, choices=TagKind)
    key = models.CharField(max_length=MAX_TAG_NAME)  # the smaller of the two keys
    other_key = models.CharField(max_length=MAX_TAG_NAME)
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "key", "other_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "key", "other_key"], name="papers_dismissedvariant_pair"
            ),
            # One row per pair, whichever order the tags came in.
            models.CheckConstraint(
                condition=Q(key__lt=F("other_key")), name="papers_dismissedvariant_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ≠ {self.other_key} ({self.kind})"
