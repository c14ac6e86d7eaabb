"""The catalogue: papers, their ordered authors, their tags (venue, track, lab) and the imports
that wrote them.

Over 600 lines: the catalogue's models that refer to each other (papers, authors, tags, imports,
reviews) stay together; what needs none of them has its own module, re-exported here: the search
change log (models_search.py), feeds (models_feeds.py), import conflicts (models_conflicts.py),
merged papers' and authors' identities (models_merged.py), tag kinds (choices.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse

from accounts.roles import is_member
from papers.arxiv_categories import category_label
from papers.choices import PublicationType as PublicationType
from papers.choices import TagKind as TagKind  # a leaf module: querysets need it too
from papers.duplicate_keys import KEY_COLUMNS, set_duplicate_keys
from papers.links import Link
from papers.models_conflicts import ImportConflict as ImportConflict  # its own module
from papers.models_feeds import Feed as Feed  # its own module: this one is long enough
from papers.models_link_fetch import LinkFetch as LinkFetch  # a member's fetch by link
from papers.models_merged import DismissedTagVariant as DismissedTagVariant
from papers.models_merged import MergedAuthor as MergedAuthor  # what merges leave: their own
from papers.models_merged import MergedPaper as MergedPaper
from papers.models_search import (  # the search change log: its own module
    SEARCH_SEQUENCE_PK as SEARCH_SEQUENCE_PK,
)
from papers.models_search import (
    SearchChange as SearchChange,
)
from papers.models_search import (
    SearchChangeManager as SearchChangeManager,
)
from papers.models_search import (
    SearchPosition as SearchPosition,
)
from papers.models_search import (
    SearchSequence as SearchSequence,
)
from papers.models_search import (
    db_column as db_column,
)
from papers.querysets import AuthorQuerySet, PaperQuerySet
from papers.routes import int_url
from papers.tags.identity import (
    MAX_TAG_KEY,
    cut_to_fit,
    identify,
    number_slugs,
    tag_key,
    tag_name_problem,
)
from papers.text import (
    MAX_ABSTRACT,
    MAX_ARXIV_ID,
    MAX_AUTHOR_NAME,
    MAX_DOI,
    MAX_FORUM_ID,
    MAX_OPENREVIEW_ID,
    MAX_REVIEW_LABEL,
    MAX_SOURCE_NAME,
    MAX_TAG_NAME,
    MAX_TITLE,
    MAX_URL,
    area_label,
    author_name_problem,
    fold_author_name,
    normalize_author_name,
    openreview_profile_id,
    paper_text_problem,
)

# What pages call a paper without a title. "Awaiting curation" only while the paper is in the
# curation queue: once a curator marks it reviewed the label would be false (see display_title).
UNTITLED_PLACEHOLDER = "Untitled paper"
UNTITLED_IN_QUEUE = "Untitled paper (awaiting curation)"
# The fields display_title reads: what a query loading papers only to name them needs, so an
# untitled paper costs no extra query for its queue flag.
DISPLAY_TITLE_FIELDS = ("title", "needs_curation")


def tag_label(kind: str, name: str) -> str:
    """A tag's name as pages show it: a primary area's raw OpenReview value humanly
    ("deep_learning_architectures" -> "Deep learning architectures", papers.text.area_label),
    an arXiv category area or keyword by its name ("Machine Learning (cs.LG)"); other tags as
    named. The stored name, key and slug stay the sources' own."""
    if kind in (TagKind.AREA, TagKind.KEYWORD):
        named = category_label(name)  # an arXiv category: "Machine Learning (cs.LG)"
        if named:
            return named
    return area_label(name) if kind == TagKind.AREA else name


class Tag(models.Model):
    name = models.CharField(max_length=MAX_TAG_NAME)
    # Case- and space-insensitive identity within a kind ("RL" == "rl ").
    key = models.CharField(max_length=MAX_TAG_KEY, editable=False)
    # The key without Latin accents (tag_search_key): what "find a keyword" matches.
    search_key = models.TextField(editable=False, default="")
    # What its spelling variants share (tags.identity.spelling_key: "diffusion model" for
    # "Diffusion Models" and "diffusion-model"): the curation queue groups tags by it.
    spelling_key = models.CharField(max_length=MAX_TAG_KEY, editable=False, default="")
    slug = models.SlugField(max_length=MAX_TAG_KEY, allow_unicode=True, editable=False)
    kind = models.CharField(max_length=10, choices=TagKind, default=TagKind.LAB)
    created_at = models.DateTimeField(auto_now_add=True)

    # What the search index reads of the tag (search.document_fields.TAG_FIELDS: its kind) as
    # stored before a save, remembered by papers.signals across it (not a field).
    _indexed_values: tuple | None

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="papers_tag_unique_kind_key"),
            models.UniqueConstraint(fields=["kind", "slug"], name="papers_tag_unique_kind_slug"),
        ]
        # The curation queue's spelling variants: a GROUP BY over it (papers.tags.variants).
        indexes = [models.Index(fields=["kind", "spelling_key"], name="papers_tag_spelling")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # papers.tags.identity: TagNameRefused for a name or key over its column, on SQLite
        # as on PostgreSQL.
        identity = identify(self.name)
        self.name, self.key, self.slug = identity.name, identity.key, identity.slug
        self.search_key = identity.search_key
        self.spelling_key = identity.spelling_key
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("papers:tag", args=[self.kind, self.slug])

    @classmethod
    def unsaved(cls, kind: str, name: str, *, slug: str) -> Tag:
        """A tag for bulk_create, which calls no save(): `name` as shown, its key and search
        key derived from it as save() derives them (and refused as save() refuses it), and a
        slug the caller found free (papers.tags.service.free_slugs)."""
        identity = identify(name)
        return cls(
            kind=kind,
            name=identity.name,
            key=identity.key,
            search_key=identity.search_key,
            spelling_key=identity.spelling_key,
            slug=slug,
        )

    def clean(self) -> None:
        problem = tag_name_problem(self.name)
        if problem:
            raise ValidationError({"name": problem})

    @property
    def label(self) -> str:
        return tag_label(self.kind, self.name)


class TagAlias(models.Model):
    """Another spelling of a tag, left by a curator's merge (papers.tags.service.merge_tags):
    an import that brings it links the paper to `tag` rather than creating the merged tag
    again, and the merged tag's page and list filters lead to `tag`."""

    kind = models.CharField(max_length=10, choices=TagKind)
    key = models.CharField(max_length=MAX_TAG_KEY)
    slug = models.SlugField(max_length=MAX_TAG_KEY, allow_unicode=True)
    name = models.CharField(max_length=MAX_TAG_NAME)  # the merged tag's, as the admin shows it
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="aliases")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "name"]
        verbose_name_plural = "tag aliases"
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="papers_tagalias_kind_key"),
        ]
        indexes = [models.Index(fields=["kind", "slug"], name="papers_tagalias_kind_slug")]

    def __str__(self) -> str:
        return f"{self.name} → {self.tag.name}"


class Author(models.Model):
    name = models.CharField(max_length=MAX_AUTHOR_NAME)
    # Not unique: two people may share a name, told apart by their OpenReview profiles. An
    # import matches authors by profile first, then by this (papers.importing.loader).
    normalized_name = models.CharField(max_length=MAX_AUTHOR_NAME, editable=False)
    # normalized_name without accents, for finding authors by name (AuthorQuerySet.named_like).
    search_name = models.TextField(editable=False, default="")
    # The person's OpenReview profile ("~Jane_Doe1"), when a source named it. Null rather than
    # "" when unknown, so that only the profiles given are unique (Django's rule for a unique
    # field that may be blank).
    openreview_id = models.CharField(
        "OpenReview profile id",
        max_length=MAX_OPENREVIEW_ID,
        null=True,
        blank=True,
        unique=True,
        help_text="e.g. ~Jane_Doe1; imports from OpenReview fill it in.",
    )
    # The person's ORCID iD ("0000-0002-1825-0097"), when a source gave it (Crossref's
    # author.ORCID): how an ORCID sign-in finds the member's author (accounts.orcid). Null
    # when unknown, unique when set, as openreview_id.
    orcid = models.CharField(
        "ORCID iD",
        max_length=19,
        null=True,
        blank=True,
        unique=True,
        help_text="e.g. 0000-0002-1825-0097; imports from Crossref fill it in.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AuthorQuerySet.as_manager()

    # Set by the admin's author list on the authors it shows (not a field).
    sample_titles: list[str]

    class Meta:
        ordering = ["name", "pk"]
        indexes = [
            # Imports look authors up by name (those without a profile id, or a new one).
            models.Index(fields=["normalized_name"], name="papers_author_normalized"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.normalized_name = normalize_author_name(self.name)
        self.search_name = fold_author_name(self.name)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return int_url("papers:author", self.pk)

    @property
    def openreview_url(self) -> str:
        """The person's profile page on OpenReview, "" when their profile id is unknown."""
        if not self.openreview_id:
            return ""
        return "https://openreview.net/profile?" + urlencode({"id": self.openreview_id})

    def clean(self) -> None:
        problem = author_name_problem(self.name)
        if problem:
            raise ValidationError({"name": problem})
        if self.openreview_id is not None and not openreview_profile_id(self.openreview_id):
            raise ValidationError(
                {"openreview_id": "An OpenReview profile id starts with ~, e.g. ~Jane_Doe1."}
            )


MAX_INVOKED_BY = 200


class ImportRun(models.Model):
    """One import that wrote to the catalogue: when, who, which files, and what it did.

    Created at the start of the import's transaction, so that the papers it writes can point
    to it, and completed just before that transaction commits: a failed or killed import, or a
    dry run, leaves no run behind.
    """

    # Taken before the files are read: the duration covers reading, validating and loading.
    started_at = models.DateTimeField()
    # Null only inside the import's own transaction; every committed run has it.
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who and how, e.g. "manage.py import_papers (alice)": kept as text so that it outlives
    # the user account and also names imports that no site user started.
    invoked_by = models.CharField(max_length=MAX_INVOKED_BY, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_runs",
        help_text="The site user who started the import; empty for the command line.",
    )
    # In import order: {"path", "created", "updated", "unchanged", "conflicts"} per file.
    files = models.JSONField(default=list, blank=True)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    conflicts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-pk"]

    def __str__(self) -> str:
        return f"Import #{self.pk}"

    @property
    def duration(self) -> timedelta | None:
        if self.finished_at is None:
            return None
        return self.finished_at - self.started_at


def validate_title(value: str) -> None:
    _refuse(paper_text_problem("The title", value))


def validate_abstract(value: str) -> None:
    _refuse(paper_text_problem("The abstract", value))


def _refuse(problem: str) -> None:
    if problem:
        raise ValidationError(problem + ".")


class Paper(models.Model):
    # Blank when a source gave only an abstract; such papers are flagged for curation.
    title = models.CharField(max_length=MAX_TITLE, blank=True, validators=[validate_title])
    # max_length on a TextField is checked by forms (the admin), not by the database.
    abstract = models.TextField(max_length=MAX_ABSTRACT, blank=True, validators=[validate_abstract])
    forum_id = models.CharField(
        "OpenReview forum id", max_length=MAX_FORUM_ID, blank=True, help_text="Unique when present."
    )
    forum_url = models.URLField("OpenReview forum URL", max_length=MAX_URL, blank=True)
    pdf_url = models.URLField("PDF URL", max_length=MAX_URL, blank=True)
    # Identities besides the forum id: papers from arXiv feeds and reference managers.
    arxiv_id = models.CharField(
        "arXiv id", max_length=MAX_ARXIV_ID, blank=True, help_text="Unique when present."
    )
    doi = models.CharField("DOI", max_length=MAX_DOI, blank=True, help_text="Lower case.")
    # As a source gives it (BibTeX year, RIS PY, arXiv's first version): what a citation says
    # when the paper's venue names no year (annotations.exports.paper_year).
    year = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Publication year, when a source gives one."
    )
    # As the sources say (papers.importing.publication_types): what a citation's entry type
    # follows (@article, @inproceedings, a preprint's @misc). Blank: no source said.
    publication_type = models.CharField(
        max_length=20,
        choices=PublicationType,
        blank=True,
        help_text="What the sources say it is; citations follow it.",
    )
    # Natural key for records without a forum id (see papers.text.abstract_fingerprint).
    abstract_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    # Denormalised "First Last, First Last" in author order: feeds full-text search.
    author_names = models.TextField(blank=True, editable=False)
    # What a likely duplicate shares with this paper (papers.duplicate_keys), set on every save
    # and by the loader. None: no title, or a short abstract.
    duplicate_title_key = models.BigIntegerField(null=True, blank=True, editable=False)
    duplicate_opening_key = models.BigIntegerField(null=True, blank=True, editable=False)
    duplicate_ending_key = models.BigIntegerField(null=True, blank=True, editable=False)
    needs_curation = models.BooleanField(default=False)
    curation_reason = models.CharField(max_length=200, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # What the source's reviews say (see Review), kept by Review.objects.refresh_summaries:
    # the decision as the source words it ("" when none was given) and the reviewers' mean
    # rating and confidence (null without a rating).
    decision = models.CharField(max_length=MAX_TAG_NAME, blank=True, editable=False)
    mean_rating = models.FloatField(null=True, blank=True, editable=False)
    mean_confidence = models.FloatField(null=True, blank=True, editable=False)
    review_count = models.PositiveIntegerField(default=0, editable=False)
    # Names of fields a curator changed in admin; re-imports never overwrite these.
    curator_edited_fields = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set by the importer only; a curator's edit in admin leaves both as they are.
    created_by_import = models.ForeignKey(
        ImportRun,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="papers_created",
    )
    # The latest import that created or changed the paper (fields, authors or tags).
    changed_by_import = models.ForeignKey(
        ImportRun,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="papers_changed",
    )

    authors = models.ManyToManyField(Author, through="Authorship", related_name="papers")
    tags = models.ManyToManyField(Tag, through="PaperTag", related_name="papers")

    # Set on the instances a page shows, by the code that reads them (not fields): a listing's
    # first authors and tags (papers.listing), its hidden authors' number, every author's name
    # for an export (annotations.selectors), a search's snippet and a similar paper's reasons
    # (papers.views), the counts the admin's related-papers column shows (papers.admin).
    listed_authors: list[Link]
    listed_tags: list[Link]
    more_authors: int
    author_rows: list  # what the listing's query read of them (PaperQuerySet.for_browsing)
    tag_rows: list
    author_list: list[str]
    headline: str
    found_by: str  # why a search lists it: "words", "meaning", "both" (or "": not said)
    similar_reasons: list[str]
    related_counts: list

    objects = PaperQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["forum_id"],
                condition=~Q(forum_id=""),
                name="papers_paper_unique_forum_id",
            ),
            models.UniqueConstraint(
                fields=["arxiv_id"],
                condition=~Q(arxiv_id=""),
                name="papers_paper_unique_arxiv_id",
            ),
        ]
        indexes = [
            models.Index(fields=["abstract_fingerprint"], name="papers_paper_fingerprint"),
            models.Index(fields=["doi"], condition=~Q(doi=""), name="papers_paper_doi"),
            models.Index(fields=["-created_at", "-id"], name="papers_paper_newest"),  # default sort
            # The curation queue, newest first: only the papers in it, in its order. Indexing
            # the flag alone let SQLite walk the newest index over every paper instead.
            models.Index(
                fields=["-created_at", "-id"],
                condition=Q(needs_curation=True),
                name="papers_paper_curation_queue",
            ),
            # Likely duplicates of an import's papers, by each kind of key (papers.duplicates).
            models.Index(fields=["duplicate_title_key"], name="papers_paper_dup_title"),
            models.Index(fields=["duplicate_opening_key"], name="papers_paper_dup_opening"),
            models.Index(fields=["duplicate_ending_key"], name="papers_paper_dup_ending"),
            # The untitled papers, whose abstracts every import's papers are compared with.
            models.Index(fields=["id"], condition=Q(title=""), name="papers_paper_untitled"),
        ]

    def __str__(self) -> str:
        return self.display_title

    def save(self, *args, **kwargs) -> None:
        fields = kwargs.get("update_fields")
        if fields is None or {"title", "abstract"}.intersection(fields):
            set_duplicate_keys(self)
            kwargs["update_fields"] = None if fields is None else {*fields, *KEY_COLUMNS.values()}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return int_url("papers:detail", self.pk)

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        return UNTITLED_IN_QUEUE if self.needs_curation else UNTITLED_PLACEHOLDER

    def refresh_author_names(self, *, save: bool = True) -> None:
        """Recompute the denormalised author list after authorships changed."""
        names = self.authorships.order_by("position").values_list("author__name", flat=True)
        self.author_names = ", ".join(names)
        if save:
            Paper.objects.filter(pk=self.pk).update(author_names=self.author_names)
            SearchChange.objects.record([self.pk])


class Authorship(models.Model):
    # No index of their own: the unique (paper, position) and the (author, paper) index below
    # start with them, and every index is paid for on each of an import's million rows.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    author = models.ForeignKey(
        Author, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
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
    # No index of their own: the unique (paper, tag) and the (tag, paper) index start with them.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="paper_tags", db_index=False
    )
    tag = models.ForeignKey(
        Tag, on_delete=models.CASCADE, related_name="paper_tags", db_index=False
    )
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


# "id:" + a forum id, "arxiv:" + an arXiv id, "doi:" + a DOI or "fp:" + an abstract fingerprint.
MAX_SOURCE_KEY = max(MAX_FORUM_ID, MAX_ARXIV_ID, MAX_DOI, 64) + len("arxiv:")


class SourceRecord(models.Model):
    """What one source last supplied for one of its records: the base of a three-way merge.

    A re-import changes only what its source itself changed since that source's last import,
    so two sources that disagree do not flip a field back and forth on every run. Values are
    kept as short hashes: the merge only asks "did this source change it?" and "is the
    catalogue's value still this source's?".
    """

    # The file's name without its directory, e.g. "iclr2024.jsonl": a newer download of the
    # same file is the same source.
    source = models.CharField(max_length=MAX_SOURCE_NAME)
    # The record's identity within its source (see papers.importing.sources.record_key).
    key = models.CharField(max_length=MAX_SOURCE_KEY)
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="source_records")
    # Hash of the whole record: equal means the source has nothing new for this paper.
    digest = models.CharField(max_length=32)
    # Field name -> hash of the value this source last supplied for it.
    fields = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "key"], name="papers_source_record_key"),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.key}"


class SourceFile(models.Model):
    """The file a source was last imported from, as a hash: importing the same bytes again
    (with the same format) has nothing to merge, so the file is not read at all.

    Trusted only while the source's records are as that import left them: `source_records`
    is how many SourceRecords of the source it left with a digest, and a curator deleting one
    of its papers or releasing edited fields (which clears digests) changes that count.
    """

    source = models.CharField(max_length=MAX_SOURCE_NAME, unique=True)
    digest = models.CharField(max_length=64)  # BLAKE2b of the file's bytes
    format = models.CharField(max_length=30)  # what --format said, "" when detected
    # What that import counted in the file (records, repeated ones included).
    records = models.PositiveIntegerField()
    source_records = models.PositiveIntegerField()
    imported_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.source} ({self.records} records)"


# --- Reviews --------------------------------------------------------------------------------

# Papers per query when summarising reviews: below SQLite's bound-parameter limit.
_REVIEW_CHUNK = 500


@dataclass(frozen=True)
class ReviewSummary:
    """What a paper's reviews say, as Paper stores it."""

    decision: str = ""
    mean_rating: float | None = None
    mean_confidence: float | None = None
    review_count: int = 0

    @classmethod
    def of(cls, rows: Iterable[tuple[str, float | None, float | None, str]]) -> ReviewSummary:
        """From (kind, rating, confidence, decision) rows in the order the notes were written:
        the last decision note's decision, else the last meta-review's recommendation."""
        ratings, confidences = [], []
        decided, recommended, count = "", "", 0
        for kind, rating, confidence, decision in rows:
            if kind == Review.Kind.REVIEW:
                count += 1
                if rating is not None:
                    ratings.append(rating)
                if confidence is not None:
                    confidences.append(confidence)
            elif kind == Review.Kind.DECISION and decision:
                decided = decision
            elif kind == Review.Kind.META_REVIEW and decision:
                recommended = decision
        return cls(
            decision=decided or recommended,
            mean_rating=sum(ratings) / len(ratings) if ratings else None,
            mean_confidence=sum(confidences) / len(confidences) if confidences else None,
            review_count=count,
        )


class ReviewManager(models.Manager["Review"]):
    def visible_to(self, user) -> models.QuerySet[Review]:
        """The reviews `user` may read: members-only ones for a member alone (not a guest)."""
        if is_member(user):
            return self.all()
        return self.filter(visibility=Review.Visibility.PUBLIC)

    def refresh_summaries(self, paper_ids: Iterable[int]) -> set[int]:
        """Recompute the review summary of these papers (Paper.decision, mean_rating,
        mean_confidence, review_count and the paper's one decision tag) from their public
        reviews (what every visitor sees must not reveal a members-only one);
        returns the papers whose decision or mean rating changed, recorded for the search
        index in the caller's transaction. A fixed handful of queries per 500 papers."""
        ids = sorted({int(pk) for pk in paper_ids})
        indexed: set[int] = set()
        for start in range(0, len(ids), _REVIEW_CHUNK):
            indexed |= self._refresh(ids[start : start + _REVIEW_CHUNK])
        SearchChange.objects.record(indexed)
        return indexed

    def _refresh(self, ids: list[int]) -> set[int]:
        # One row per note: two sources holding the same forum dump store its notes twice.
        rows: dict[int, dict[str, tuple]] = {pk: {} for pk in ids}
        for paper_id, note_id, *row in (
            self.filter(paper_id__in=ids, visibility=Review.Visibility.PUBLIC)
            .order_by("paper_id", "created", "pk")
            .values_list("paper_id", "note_id", "kind", "rating", "confidence", "decision")
        ):
            rows[paper_id].pop(note_id, None)  # the latest stored copy, in its place in time
            rows[paper_id][note_id] = tuple(row)
        changed, indexed, redecided = [], set(), []
        for paper in Paper.objects.filter(pk__in=ids).only(
            "decision", "mean_rating", "mean_confidence", "review_count"
        ):
            summary = ReviewSummary.of(rows[paper.pk].values())
            current = ReviewSummary(
                paper.decision, paper.mean_rating, paper.mean_confidence, paper.review_count
            )
            if summary == current:
                continue
            if (summary.decision, summary.mean_rating) != (current.decision, current.mean_rating):
                indexed.add(paper.pk)
            if summary.decision != current.decision:
                redecided.append(paper)
            paper.decision = summary.decision
            paper.mean_rating = summary.mean_rating
            paper.mean_confidence = summary.mean_confidence
            paper.review_count = summary.review_count
            changed.append(paper)
        fields = ["decision", "mean_rating", "mean_confidence", "review_count"]
        Paper.objects.bulk_update(changed, fields)
        self._tag_decisions(redecided)
        return indexed

    @staticmethod
    def _tag_decisions(papers: list[Paper]) -> None:
        """Each paper's decision as its one tag of kind DECISION: the list page's facet."""
        PaperTag.objects.filter(paper__in=papers, tag__kind=TagKind.DECISION).delete()
        decided = [paper for paper in papers if paper.decision]
        if not decided:
            return
        # A decision is a reviewer's text, up to MAX_TAG_NAME characters: one whose key folds
        # longer is cut to fit, the same on every database.
        keys = {tag_key(cut_to_fit(paper.decision)): paper.decision for paper in decided}
        tags = {
            tag.key: tag for tag in Tag.objects.filter(kind=TagKind.DECISION, key__in=list(keys))
        }
        missing = {
            (str(TagKind.DECISION), key): cut_to_fit(name)
            for key, name in keys.items()
            if key not in tags
        }
        if missing:
            # "Accept: poster" (ICLR 2023) and "Accept (poster)" (2024) share a slug: a new tag
            # whose slug is taken gets "-2" (new ones in key order, as the importer's tags).
            # Tag.save would insist on the plain slug, so the rows are inserted as they are.
            def taken(candidates: list[tuple[str, str]]) -> Iterable[tuple[str, str]]:
                slugs = [slug for _, slug in candidates]
                stored = Tag.objects.filter(kind=TagKind.DECISION, slug__in=slugs)
                return stored.values_list("kind", "slug")

            slugs = number_slugs(missing, taken)
            new = [
                Tag.unsaved(kind, name, slug=slugs[(kind, key)])
                for (kind, key), name in missing.items()
            ]
            tags.update((tag.key, tag) for tag in Tag.objects.bulk_create(new))
        PaperTag.objects.bulk_create(
            PaperTag(paper=paper, tag=tags[tag_key(cut_to_fit(paper.decision))])
            for paper in decided
        )


class Review(models.Model):
    """A reply note of a paper's OpenReview forum that says what reviewers and chairs
    decided: a review (rating, confidence), a meta-review (its recommendation) or the
    decision, with its texts. Written by the importer, identified by the note's id within its
    source; papers.reviews selects what a reader may see of them."""

    class Kind(models.TextChoices):
        REVIEW = "review", "Review"
        META_REVIEW = "meta_review", "Meta-review"
        DECISION = "decision", "Decision"

    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public"  # the note's readers include "everyone"
        MEMBERS = "members", "Members only"  # the venue let only some read it

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="reviews")
    source = models.CharField(max_length=MAX_SOURCE_NAME)  # as SourceRecord.source
    note_id = models.CharField(max_length=MAX_FORUM_ID)
    kind = models.CharField(max_length=12, choices=Kind)
    # The leading number of "6: marginally above the acceptance threshold", and the text.
    rating = models.FloatField(null=True, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    rating_label = models.CharField(max_length=MAX_REVIEW_LABEL, blank=True)
    confidence_label = models.CharField(max_length=MAX_REVIEW_LABEL, blank=True)
    # A decision note's decision, a meta-review's recommendation ("Accept (poster)").
    decision = models.CharField(max_length=MAX_TAG_NAME, blank=True)
    # The note's text fields in the venue's order, as [name, Markdown text] pairs
    # ([["summary", "..."], ["strengths", "..."], ...]).
    texts = models.JSONField(default=list, blank=True)
    # Who may read it: the note's `readers` as OpenReview gave them, and what the site makes
    # of them. Members-only notes are left out of the paper's summary (Paper.mean_rating...).
    visibility = models.CharField(max_length=8, choices=Visibility, default=Visibility.PUBLIC)
    readers = models.JSONField(default=list, blank=True)
    reviewer = models.CharField(max_length=MAX_FORUM_ID, blank=True)  # "Reviewer a1Bc"
    created = models.DateTimeField(null=True, blank=True)  # the note's cdate
    modified = models.DateTimeField(null=True, blank=True)  # the note's mdate

    objects = ReviewManager()

    class Meta:
        ordering = ["paper", "created", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["source", "note_id"], name="papers_review_note"),
        ]
        indexes = [models.Index(fields=["paper", "created"], name="papers_review_paper")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.note_id} of paper {self.paper_id}"
