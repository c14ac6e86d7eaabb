"""Highlights and margin notes in a paper's PDF (docs/highlights.md).

A highlight is anchored as a W3C Web Annotation: a TextQuoteSelector (`exact` with up to 32
code points of `prefix` and `suffix`), a TextPositionSelector (`start`, `end`) and the page,
all counted in the page's text as PDF.js's getTextContent gives it. The quote identifies the
place; the positions and page are where it was last found, in the file whose SHA-256 is
`pdf_sha256`. A highlight the reader cannot find again is kept, `orphaned`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import SafeString, mark_safe

from accounts.roles import is_member
from annotations.markdown import render_markdown
from annotations.models import Comment
from highlights.quotes import joined_quote
from papers.models import Paper

EXACT_MAX_LENGTH = 2_000  # a long paragraph of a two-column paper
CONTEXT_MAX_LENGTH = 32
NOTE_MAX_LENGTH = 5_000
# Past any page of any paper (a 300-page book is 300): a larger number is no page.
PAGE_MAX = 10_000
# Code points in one page's text: a dense page holds about 6,000.
POSITION_MAX = 1_000_000


def reader_url(paper_id: int) -> str:
    """The paper's PDF reader (pdfs:reader). The reader is built beside this app; until its URL
    is installed, the path it is agreed to have."""
    try:
        return reverse("pdfs:reader", args=[paper_id])
    except NoReverseMatch:
        return f"/papers/{paper_id}/read/"


class HighlightVisibility(models.TextChoices):
    PRIVATE = "private", "Private"
    LAB = "lab", "Shared with the lab"


class HighlightQuerySet(models.QuerySet):
    def visible_to(self, user) -> HighlightQuerySet:
        """The member's own highlights and the lab's; nothing for a visitor, who sees no
        comments either (the discussion is for members), nor for a guest, who sees the lab's
        comments on papers but not its highlights."""
        if not is_member(user):
            return self.none()
        return self.filter(Q(author=user) | Q(visibility=HighlightVisibility.LAB))

    def shared(self) -> HighlightQuerySet:
        return self.filter(visibility=HighlightVisibility.LAB)

    def in_page_order(self) -> HighlightQuerySet:
        return self.order_by("page", "start", "pk")

    def newest_first(self) -> HighlightQuerySet:
        return self.order_by("-created_at", "-pk")


class Highlight(models.Model):
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="highlights")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="highlights"
    )
    page = models.PositiveIntegerField()
    exact = models.TextField(max_length=EXACT_MAX_LENGTH)
    prefix = models.CharField(max_length=CONTEXT_MAX_LENGTH, blank=True)
    suffix = models.CharField(max_length=CONTEXT_MAX_LENGTH, blank=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    # The PDF the selectors were found in; a different stored file means "find it again".
    pdf_sha256 = models.CharField("PDF SHA-256", max_length=64, blank=True)
    orphaned = models.BooleanField(default=False)
    note = models.TextField(max_length=NOTE_MAX_LENGTH, blank=True)
    note_html = models.TextField(blank=True, editable=False)  # as annotations.Note.body_html
    visibility = models.CharField(
        max_length=10, choices=HighlightVisibility, default=HighlightVisibility.PRIVATE
    )
    # A lab highlight's discussion: a comment under the paper that replies attach to
    # (highlights.threads); none while private.
    comment = models.OneToOneField(
        Comment,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="highlight",
    )
    # Who last moved the anchor (its author or a curator: may_be_anchored_by), and when; null
    # until someone did. The reader's report after a new file counts as a move.
    anchored_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    anchored_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = HighlightQuerySet.as_manager()

    # Set by highlights.selectors (the replies to its thread) and the panel's template tag.
    reply_count: int
    stale: bool

    class Meta:
        ordering = ["paper", "page", "start", "pk"]
        indexes = [
            # The reader's list and the panel: one paper's highlights
            models.Index(fields=["paper", "page", "start"], name="highlights_paper_page"),
            # "My notes and highlights" exports: one member's
            models.Index(fields=["author", "paper"], name="highlights_author_paper"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gt=models.F("start")), name="highlights_end_after_start"
            ),
            models.CheckConstraint(condition=Q(page__gte=1), name="highlights_page_from_one"),
            models.CheckConstraint(
                condition=Q(visibility__in=HighlightVisibility.values),
                name="highlights_visibility_known",
            ),
        ]

    def __str__(self) -> str:
        return f"Highlight by {self.author} on p. {self.page} of {self.paper}"

    def save(self, *args, **kwargs) -> None:
        self.note_html = render_markdown(self.note) if self.note else ""
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        """Where the reader shows it: the reader scrolls to #highlight-<id>."""
        return f"{reader_url(self.paper_id)}#highlight-{self.pk}"

    def get_jsonld_url(self) -> str:
        return reverse("highlights:jsonld", args=[self.pk])

    @property
    def quote(self) -> str:
        """The quote as shown to people, its line breaks joined (`exact` anchors it)."""
        return joined_quote(self.exact)

    @property
    def is_shared(self) -> bool:
        return self.visibility == HighlightVisibility.LAB

    def is_private_from(self, user) -> bool:
        return not self.is_shared and self.author_id != user.pk

    def may_be_anchored_by(self, user) -> bool:
        """Its author, or a curator (staff, as for removing a comment or a lab tag): another
        member's reader only shows it."""
        return user.is_authenticated and (self.author_id == user.pk or user.is_staff)

    def needs_anchor(self, current_sha256: str | None) -> bool:
        """Whether the paper's stored PDF (`current_sha256`, None without one) is not the file
        the selectors were found in."""
        return bool(current_sha256) and current_sha256 != self.pdf_sha256

    @property
    def note_rendered(self) -> SafeString:
        # Only save() writes note_html, with render_markdown's output, which escapes every
        # piece of user text itself (annotations.markdown).
        return mark_safe(self.note_html)  # noqa: S308


class HighlightPreference(models.Model):
    """The visibility a member chose last: the reader offers it first next time."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="highlight_preference"
    )
    default_visibility = models.CharField(
        max_length=10, choices=HighlightVisibility, default=HighlightVisibility.PRIVATE
    )

    class Meta:
        ordering = ["user"]

    def __str__(self) -> str:
        return f"Highlight default for {self.user}: {self.default_visibility}"

    def is_private_from(self, user) -> bool:
        return self.user_id != user.pk
