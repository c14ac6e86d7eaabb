"""What a curator's merge leaves of the papers and authors it deleted: their identities, each
pointing at the record that took its place (merged tags are TagAlias, beside Tag). Read through
papers.identity; imported by papers.models, whose models these refer to by name."""

from __future__ import annotations

from django.db import models

from papers.text import MAX_AUTHOR_NAME, MAX_FORUM_ID, MAX_TITLE


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
