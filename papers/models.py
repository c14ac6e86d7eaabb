"""The catalogue: papers, their ordered authors and their tags (venue, track, lab)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse

from papers.querysets import PaperQuerySet
from papers.text import (
    MAX_ABSTRACT,
    MAX_AUTHOR_NAME,
    MAX_FORUM_ID,
    MAX_TAG_NAME,
    MAX_TITLE,
    MAX_URL,
    author_name_problem,
    normalize_author_name,
    normalize_tag_name,
    tag_key,
    tag_name_problem,
    tag_slug,
)

UNTITLED_PLACEHOLDER = "Untitled paper (awaiting curation)"


class TagKind(models.TextChoices):
    VENUE = "venue", "Venue"
    TRACK = "track", "Presentation track"
    LAB = "lab", "Lab tag"


class Tag(models.Model):
    name = models.CharField(max_length=MAX_TAG_NAME)
    # Case- and space-insensitive identity within a kind ("RL" == "rl ").
    key = models.CharField(max_length=100, editable=False)
    slug = models.SlugField(max_length=100, allow_unicode=True, editable=False)
    kind = models.CharField(max_length=10, choices=TagKind, default=TagKind.LAB)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="papers_tag_unique_kind_key"),
            models.UniqueConstraint(fields=["kind", "slug"], name="papers_tag_unique_kind_slug"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name = normalize_tag_name(self.name)
        self.key = tag_key(self.name)
        self.slug = tag_slug(self.name)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("papers:tag", args=[self.kind, self.slug])

    def clean(self) -> None:
        problem = tag_name_problem(self.name)
        if problem:
            raise ValidationError({"name": problem})


class Author(models.Model):
    name = models.CharField(max_length=MAX_AUTHOR_NAME)
    normalized_name = models.CharField(max_length=MAX_AUTHOR_NAME, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.normalized_name = normalize_author_name(self.name)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("papers:author", args=[self.pk])

    def clean(self) -> None:
        problem = author_name_problem(self.name)
        if problem:
            raise ValidationError({"name": problem})


class Paper(models.Model):
    # Blank when a source gave only an abstract; such papers are flagged for curation.
    title = models.CharField(max_length=MAX_TITLE, blank=True)
    # max_length on a TextField is checked by forms (the admin), not by the database.
    abstract = models.TextField(max_length=MAX_ABSTRACT, blank=True)
    forum_id = models.CharField(
        "OpenReview forum id", max_length=MAX_FORUM_ID, blank=True, help_text="Unique when present."
    )
    forum_url = models.URLField("OpenReview forum URL", max_length=MAX_URL, blank=True)
    pdf_url = models.URLField("PDF URL", max_length=MAX_URL, blank=True)
    # Natural key for records without a forum id (see papers.text.abstract_fingerprint).
    abstract_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    # Denormalised "First Last, First Last" in author order: feeds full-text search.
    author_names = models.TextField(blank=True, editable=False)
    # Hash of the last imported record: an unchanged record re-imports without a write.
    import_hash = models.CharField(max_length=64, blank=True, editable=False)
    needs_curation = models.BooleanField(default=False)
    curation_reason = models.CharField(max_length=200, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # Names of fields a curator changed in admin; re-imports never overwrite these.
    curator_edited_fields = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    authors = models.ManyToManyField(Author, through="Authorship", related_name="papers")
    tags = models.ManyToManyField(Tag, through="PaperTag", related_name="papers")

    objects = PaperQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["forum_id"],
                condition=~Q(forum_id=""),
                name="papers_paper_unique_forum_id",
            ),
        ]
        indexes = [
            models.Index(fields=["abstract_fingerprint"], name="papers_paper_fingerprint"),
            models.Index(fields=["title", "id"], name="papers_paper_title"),  # sort by title
            models.Index(fields=["-created_at", "-id"], name="papers_paper_newest"),  # default sort
            models.Index(  # curation queue
                fields=["needs_curation"],
                condition=Q(needs_curation=True),
                name="papers_paper_needs_curation",
            ),
        ]

    def __str__(self) -> str:
        return self.display_title

    def get_absolute_url(self) -> str:
        return reverse("papers:detail", args=[self.pk])

    @property
    def display_title(self) -> str:
        return self.title or UNTITLED_PLACEHOLDER

    def refresh_author_names(self, *, save: bool = True) -> None:
        """Recompute the denormalised author list after authorships changed."""
        names = self.authorships.order_by("position").values_list("author__name", flat=True)
        self.author_names = ", ".join(names)
        if save:
            Paper.objects.filter(pk=self.pk).update(author_names=self.author_names)


class Authorship(models.Model):
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="authorships")
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="authorships")
    position = models.PositiveSmallIntegerField(help_text="0 is the first author.")

    class Meta:
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"], name="papers_authorship_unique_position"
            ),
            models.UniqueConstraint(
                fields=["paper", "author"], name="papers_authorship_unique_author"
            ),
        ]
        indexes = [
            # Author pages and the author facet go from author to papers.
            models.Index(fields=["author", "paper"], name="papers_authorship_author"),
        ]

    def __str__(self) -> str:
        return f"{self.author} on {self.paper} (#{self.position + 1})"


class PaperTag(models.Model):
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="paper_tags")
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="paper_tags")
    # Null for tags that came from an import; the member who tagged otherwise.
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="paper_tags",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tag__kind", "tag__name"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "tag"], name="papers_papertag_unique"),
        ]
        indexes = [
            # Facet counts and tag pages group and filter by tag.
            models.Index(fields=["tag", "paper"], name="papers_papertag_tag"),
        ]

    def __str__(self) -> str:
        return f"{self.tag} on {self.paper}"
