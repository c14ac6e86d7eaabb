"""What lab members add to the catalogue: notes, reading lists, comments.

Lab tags are `papers.Tag` rows of kind "lab" linked through `papers.PaperTag.added_by`.

Over 600 lines: reading lists, their items, editors, each member's readings and changes, notes,
comments and notifications refer to each other and share one permission rule
(ReadingListQuerySet.visible_to / editable_by); captures, which nothing here refers to, have
their own module (models_capture.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from annotations.markdown import render_markdown
from annotations.models_capture import Capture as Capture  # the one-click capture's
from annotations.models_capture import CaptureSettings as CaptureSettings
from operations.claims import Claimable
from papers.models import LinkFetch, Paper
from papers.text import MAX_BODY

BODY_MAX_LENGTH = MAX_BODY
SUGGESTION_REASON_MAX_LENGTH = 1_000


class Note(models.Model):
    """A private note: visible to and editable by its owner only."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notes"
    )
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="notes")
    body = models.TextField(max_length=BODY_MAX_LENGTH)
    # render_markdown(body), kept by save(): rendering costs up to ~0.2 s for a hostile body
    # at the limit, so it is paid once per edit rather than on every page that shows it.
    body_html = models.TextField(blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-pk"]
        indexes = [
            models.Index(fields=["owner", "-updated_at"], name="annotations_note_owner"),
            models.Index(fields=["paper", "owner"], name="annotations_note_paper"),
        ]

    def __str__(self) -> str:
        return f"Note by {self.owner} on {self.paper}"

    def save(self, *args, **kwargs) -> None:
        self.body_html = render_markdown(self.body)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("annotations:note-edit", args=[self.pk])

    def is_private_from(self, user) -> bool:
        return self.owner_id != user.pk

    @property
    def body_rendered(self) -> SafeString:
        return _stored_markdown(self.body_html)


class Visibility(models.TextChoices):
    """A list's sharing mode. "shared" is the stored value of "the lab can read", as before
    the lab could edit: links, exports and saved rows keep their meaning."""

    PRIVATE = "private", "Private"
    SHARED = "shared", "The lab can read"
    LAB_EDIT = "lab_edit", "The lab can edit"
    EDITORS = "editors", "Named editors"


# The modes every logged-in member may read a list in.
LAB_READABLE = (Visibility.SHARED, Visibility.LAB_EDIT)


class ReadingListQuerySet(models.QuerySet):
    """Who may read and who may edit a list: the one rule, used by every page, export, the
    admin and the activity feed (through annotations.selectors)."""

    def visible_to(self, user) -> ReadingListQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(
            models.Q(owner=user)
            | models.Q(visibility__in=LAB_READABLE)
            | models.Q(visibility=Visibility.EDITORS, pk__in=_edited_by(user))
        )

    def editable_by(self, user) -> ReadingListQuerySet:
        """Lists whose items `user` may add, remove, reorder and note (the list's name, mode
        and deletion stay its owner's)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(
            models.Q(owner=user)
            | models.Q(visibility=Visibility.LAB_EDIT)
            | models.Q(visibility=Visibility.EDITORS, pk__in=_edited_by(user))
        )


def _edited_by(user) -> models.QuerySet:
    # A subquery rather than a join: a join would repeat a list once per editor and
    # multiply the item counts annotated on it.
    return ListEditor.objects.filter(user=user).values("reading_list")


class ReadingList(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reading_lists"
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2_000)
    visibility = models.CharField(max_length=10, choices=Visibility, default=Visibility.PRIVATE)
    # Where "Save" on a search result puts a paper; at most one per owner.
    is_default = models.BooleanField("default list for Save", default=False)
    papers = models.ManyToManyField(Paper, through="ReadingListItem", related_name="reading_lists")
    # Who may edit besides the owner when visibility is "editors" (kept, unused, otherwise).
    editors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="ListEditor", related_name="edited_lists", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ReadingListQuerySet.as_manager()

    class Meta:
        ordering = [Lower("name"), "pk"]
        constraints = [
            models.UniqueConstraint(
                "owner", Lower("name"), name="annotations_readinglist_unique_owner_name"
            ),
            models.UniqueConstraint(
                fields=["owner"],
                condition=models.Q(is_default=True),
                name="annotations_readinglist_one_default",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotations:list-detail", args=[self.pk])

    @property
    def is_shared(self) -> bool:
        """Whether every member may read it (the lab reads or edits it)."""
        return self.visibility in LAB_READABLE

    def is_private_from(self, user) -> bool:
        return not ReadingList.objects.visible_to(user).filter(pk=self.pk).exists()

    def is_editable_by(self, user) -> bool:
        return ReadingList.objects.editable_by(user).filter(pk=self.pk).exists()


class ListEditor(models.Model):
    """A member named as an editor of a list whose visibility is "editors"."""

    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="list_editor_rows"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["reading_list", "user"]
        constraints = [
            models.UniqueConstraint(
                fields=["reading_list", "user"], name="annotations_listeditor_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} edits {self.reading_list}"


class ReadingStatus(models.TextChoices):
    TO_READ = "to_read", "To read"
    READING = "reading", "Reading"
    READ = "read", "Read"
    # Looked at and decided against reading: triage keeps it out of "to read" without removing it.
    SKIPPED = "skipped", "Skipped"


# How far a member got with a paper: a merge keeps the furthest of two items' statuses.
_STATUS_PROGRESS: dict[str, int] = {
    ReadingStatus.TO_READ: 0,
    ReadingStatus.SKIPPED: 1,
    ReadingStatus.READING: 2,
    ReadingStatus.READ: 3,
}


class Priority(models.IntegerChoices):
    HIGH = 1, "High"
    MEDIUM = 2, "Medium"
    LOW = 3, "Low"


ITEM_NOTE_MAX_LENGTH = 2_000


class ReadingListItem(models.Model):
    """A paper in a list. `status` is the list owner's own reading status (what triage, the
    owner's exports and the personal facets read); every other member's status on the item
    is a MemberReading row."""

    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE, related_name="items")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="reading_list_items")
    position = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=ReadingStatus, default=ReadingStatus.TO_READ)
    priority = models.PositiveSmallIntegerField(choices=Priority, null=True, blank=True)
    # Who put the paper in the list (the owner for items older than shared editing).
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    note = models.TextField(blank=True, max_length=ITEM_NOTE_MAX_LENGTH)
    added_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["reading_list", "position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["reading_list", "paper"], name="annotations_item_unique_paper"
            ),
        ]
        indexes = [
            models.Index(fields=["paper", "reading_list"], name="annotations_item_paper"),
        ]

    def __str__(self) -> str:
        return f"{self.paper} in {self.reading_list}"

    def is_private_from(self, user) -> bool:
        return self.reading_list.is_private_from(user)

    def absorb(self, other: ReadingListItem) -> bool:
        """Take what `other`, the same list's item for a paper merged into this one, knows and
        this one does not: the further reading status, a priority. Whether anything changed."""
        changed = False
        if _STATUS_PROGRESS[other.status] > _STATUS_PROGRESS[self.status]:
            self.status, changed = other.status, True
        if self.priority is None and other.priority is not None:
            self.priority, changed = other.priority, True
        return changed


class ListAdditionByLink(models.Model):
    """A paper a member asked to put on their list by its link, waiting for its fetch (a
    LinkFetch of the catalogue's): put on the list, and deleted, when the fetch finishes
    (annotations.services.settle_additions_by_link)."""

    link_fetch = models.OneToOneField(
        LinkFetch, on_delete=models.CASCADE, related_name="list_addition"
    )
    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"{self.link_fetch} for {self.reading_list}"


class MemberReading(models.Model):
    """A member's reading status on an item of someone else's list (one row per item and
    member): each member of a shared list keeps their own."""

    item = models.ForeignKey(ReadingListItem, on_delete=models.CASCADE, related_name="readings")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="list_readings"
    )
    status = models.CharField(max_length=10, choices=ReadingStatus, default=ReadingStatus.TO_READ)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["item", "member"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "member"], name="annotations_memberreading_unique"
            ),
        ]
        # The lab page's "reading this week".
        indexes = [models.Index(fields=["-updated_at"], name="annotations_reading_recent")]

    def __str__(self) -> str:
        return f"{self.member}: {self.get_status_display()} ({self.item})"


class ListChangeKind(models.TextChoices):
    ADDED = "added", "added"
    REMOVED = "removed", "removed"
    MOVED = "moved", "moved"
    NOTED = "noted", "noted"


class ListChange(models.Model):
    """One edit of a list by a member: the lab's activity and its followers' notifications."""

    reading_list = models.ForeignKey(ReadingList, on_delete=models.CASCADE, related_name="changes")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=ListChangeKind)
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["-at"], name="annotations_listchange_recent")]

    def __str__(self) -> str:
        return f"{self.actor} {self.kind} {self.paper} in {self.reading_list}"


class SuggestionState(models.TextChoices):
    OPEN = "open", "Waiting"
    ACCEPTED = "accepted", "Accepted"
    DISMISSED = "dismissed", "Dismissed"


class Suggestion(models.Model):
    """ "You should read this": one member suggests a paper to another. Seen by those two only."""

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="suggestions_sent"
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="suggestions_received"
    )
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="suggestions")
    reason = models.TextField(blank=True, max_length=SUGGESTION_REASON_MAX_LENGTH)
    state = models.CharField(max_length=10, choices=SuggestionState, default=SuggestionState.OPEN)
    accepted_into = models.ForeignKey(
        ReadingList, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(sender=models.F("recipient")),
                name="annotations_suggestion_not_to_self",
            ),
            # Suggesting the same paper twice while the first waits adds nothing.
            models.UniqueConstraint(
                fields=["sender", "recipient", "paper"],
                condition=models.Q(state="open"),
                name="annotations_suggestion_one_open",
            ),
        ]
        indexes = [
            models.Index(
                fields=["recipient", "state", "-created_at"], name="annotations_sugg_inbox"
            ),
            models.Index(fields=["-created_at"], name="annotations_sugg_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.sender} suggests {self.paper} to {self.recipient}"

    def is_private_from(self, user) -> bool:
        return user.pk not in (self.sender_id, self.recipient_id)


class AnchorState(models.TextChoices):
    ATTACHED = "attached", "Attached"
    # The abstract was edited and the quoted text is no longer in it; the quote is kept.
    ORPHANED = "orphaned", "Orphaned"


# An anchor's sizes (annotations.anchors): the quote, and the context either side of it that
# tells two occurrences of the same words apart.
QUOTE_MAX_LENGTH = 1_000
QUOTE_CONTEXT_LENGTH = 64


class Comment(models.Model):
    """One message in the thread under a paper; removal is soft so the thread keeps its shape.

    Threads are one level deep: `parent` is always a top-level comment (annotations.discussion
    attaches a reply to a reply to the top-level comment above it).

    A top-level comment may be anchored in the abstract: a W3C Web Annotation TextQuoteSelector
    (`quote` with up to 64 characters of `quote_prefix` and `quote_suffix`) plus a
    TextPositionSelector hint (`quote_start`), all counted in annotations.anchors.plain_text.
    """

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comments"
    )
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    body = models.TextField(max_length=BODY_MAX_LENGTH)
    body_html = models.TextField(blank=True, editable=False)  # as Note.body_html
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The anchor: blank `quote` (and `anchor_state`) on a comment about the whole paper.
    quote = models.TextField(max_length=QUOTE_MAX_LENGTH, blank=True)
    quote_prefix = models.CharField(max_length=QUOTE_CONTEXT_LENGTH, blank=True)
    quote_suffix = models.CharField(max_length=QUOTE_CONTEXT_LENGTH, blank=True)
    # Where the quote starts in the abstract's plain text; null once orphaned.
    quote_start = models.PositiveIntegerField(null=True, blank=True)
    anchor_state = models.CharField(max_length=10, choices=AnchorState, blank=True)

    # Set by annotations.selectors.paper_comments and annotations.panel for the thread.
    thread_replies: list[Comment]
    reply_form: Any

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["paper", "created_at"], name="annotations_comment_thread"),
            models.Index(fields=["-updated_at"], name="annotations_comment_recent"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(parent__isnull=True) | models.Q(quote=""),
                name="annotations_comment_reply_unanchored",
            ),
        ]

    def __str__(self) -> str:
        return f"Comment by {self.author} on {self.paper}"

    def save(self, *args, **kwargs) -> None:
        # Mentions are resolved when the body is saved, like the rest of body_html: the users
        # found are kept in `mentioned_users` for the notifications the save leads to.
        self.mentioned_users: list = []
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "body" in update_fields:
            self.body_html = render_markdown(self.body, mentionable=self._find_mentioned)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return f"{self.paper.get_absolute_url()}#comment-{self.pk}"

    def _find_mentioned(self, names: set[str]) -> set[str]:
        named = members_named(names)
        self.mentioned_users = list({user.pk: user for user in named.values()}.values())
        return set(named)

    @property
    def body_rendered(self) -> SafeString:
        return _stored_markdown(self.body_html)

    @property
    def is_removed(self) -> bool:
        return self.removed_at is not None

    @property
    def is_withdrawn(self) -> bool:
        """Removed with its text for good (annotations.services.withdraw_comment): a comment
        posted has a visible character, so only a withdrawal leaves its body blank."""
        return self.is_removed and not self.body

    @property
    def is_anchored(self) -> bool:
        return bool(self.quote)

    @property
    def is_orphaned(self) -> bool:
        return self.anchor_state == AnchorState.ORPHANED


def members_named(names: set[str]) -> dict[str, Any]:
    """Each of `names` (as typed after an @) that names an active member -> that member: the
    username spelt exactly so, else the one username equal to it case aside (sign-up refuses
    a name differing from another by case only; two made in admin, neither exact, name nobody).
    Case is folded by the database's LOWER (ASCII only on SQLite)."""
    lowered = {name.lower() for name in names}
    users = list(
        get_user_model()
        .objects.alias(name_lower=Lower("username"))
        .filter(models.Q(username__in=names) | models.Q(name_lower__in=lowered), is_active=True)
    )
    by_name = {user.get_username(): user for user in users}
    found: dict[str, Any] = {}
    for name in names:
        if name in by_name:
            found[name] = by_name[name]
            continue
        alike = [user for user in users if user.get_username().lower() == name.lower()]
        if len(alike) == 1:
            found[name] = alike[0]
    return found


class NotificationKind(models.TextChoices):
    REPLY = "reply", "Reply to your comment"
    MENTION = "mention", "Mention"
    LISTED_PAPER = "listed", "Comment on a paper in your reading lists"
    LIST_CHANGE = "listchange", "A change to a list you follow"
    SUGGESTION = "suggestion", "A paper suggested to you"


class Notification(models.Model):
    """Tells one member about one comment (at most one per member and comment), one change to
    a list they follow, or one paper suggested to them."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=10, choices=NotificationKind)
    comment = models.ForeignKey(
        Comment, on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    list_change = models.ForeignKey(
        ListChange, on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    suggestion = models.ForeignKey(
        Suggestion, on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "comment"], name="annotations_notification_one_per_comment"
            ),
        ]
        indexes = [
            # The notifications page (newest first) and the header's unread count.
            models.Index(fields=["recipient", "-created_at"], name="annotations_notif_recipient"),
            models.Index(
                fields=["recipient"],
                condition=models.Q(read_at__isnull=True),
                name="annotations_notif_unread",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.recipient}"

    def is_private_from(self, user) -> bool:
        # A "paper in your reading lists" notice tells which papers are on someone's lists,
        # private ones included; replies and mentions follow from comments the lab can read.
        # List changes and suggestions are about lists and suggestions only some may see.
        private_kinds = (
            NotificationKind.LISTED_PAPER,
            NotificationKind.LIST_CHANGE,
            NotificationKind.SUGGESTION,
        )
        return self.kind in private_kinds and self.recipient_id != user.pk

    def get_target_url(self) -> str:
        if self.list_change_id is not None:
            return self.list_change.reading_list.get_absolute_url()  # type: ignore[union-attr]
        if self.suggestion_id is not None:
            return reverse("annotations:suggestions")
        return self.comment.get_absolute_url()  # type: ignore[union-attr]

    @property
    def is_read(self) -> bool:
        return self.read_at is not None


EXPORT_PATH_MAX_LENGTH = 2000


class ExportStatus(models.TextChoices):
    QUEUED = "queued", "Waiting"
    RUNNING = "running", "Being written"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"


PENDING_EXPORT_STATUSES = (ExportStatus.QUEUED, ExportStatus.RUNNING)
# Where prepared exports are kept in the default storage; prune_exports sweeps files there
# that no job names.
EXPORT_FILES_FOLDER = "exports/"


class ExportJob(Claimable):
    """An export too large for one request, written in the background for its owner.

    `path` is the export's own URL (path and query string): the job writes what that URL
    would, as its owner would see it when the job runs. The file goes through the storage
    API and is handed out to its owner only (annotations.views.exports.export_download). The
    worker writing it holds it with a claim (held_by, held_until: operations.claims).
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="export_jobs"
    )
    path = models.CharField(max_length=EXPORT_PATH_MAX_LENGTH)
    extension = models.CharField(max_length=8)
    filename = models.CharField(max_length=200)
    status = models.CharField(
        max_length=10, choices=ExportStatus, default=ExportStatus.QUEUED, db_index=True
    )
    entries = models.PositiveIntegerField(null=True, blank=True)
    file = models.FileField(upload_to=EXPORT_FILES_FOLDER, blank=True)
    # The file's bytes once written: what its owner keeps counts against their quota.
    size = models.PositiveBigIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["owner", "-created_at"], name="annotations_export_owner")]
        constraints = [
            # One export being prepared per member, however many requests ask at once
            # (annotations.tasks.start_export answers the others with the one there is).
            models.UniqueConstraint(
                fields=["owner"],
                condition=models.Q(status__in=PENDING_EXPORT_STATUSES),
                name="annotations_export_one_pending_per_owner",
            )
        ]

    def __str__(self) -> str:
        return f"{self.filename} for {self.owner}"

    def get_absolute_url(self) -> str:
        return reverse("annotations:export-download", args=[self.pk])

    @property
    def is_pending(self) -> bool:
        return self.status in PENDING_EXPORT_STATUSES


def _stored_markdown(html: str) -> SafeString:
    # Only save() writes body_html, always with render_markdown's output, which escapes every
    # piece of user text itself (see annotations.markdown); no user input is marked safe here.
    return mark_safe(html)  # noqa: S308
