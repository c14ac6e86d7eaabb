"""Reading groups: a lab's journal club, its sessions, who presents, who comes (docs/groups.md).

Times are stored in UTC, as every DateTimeField with USE_TZ; a group's `time_zone` says how
they are entered and shown (and how calendar apps place them: groups.ics writes the
zone with each event).
"""

from __future__ import annotations

import secrets
import zoneinfo
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from annotations.markdown import render_markdown
from annotations.models import BODY_MAX_LENGTH, Comment
from operations.claims import Claimable
from papers.models import Paper

# Room in a discussion comment (BODY_MAX_LENGTH) for the heading that names the session.
NOTES_MAX_LENGTH = BODY_MAX_LENGTH - 1_000
AGENDA_MAX_LENGTH = 5_000
SESSION_MINUTES_MAX = 8 * 60


@cache
def time_zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(name: str) -> None:
    if name not in time_zone_names():
        raise ValidationError(f"“{name}” is not a time zone name such as Europe/Paris.")


def new_calendar_key() -> str:
    return secrets.token_urlsafe(32)


class ReadingGroup(models.Model):
    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(max_length=2_000, blank=True)
    usual_time = models.CharField(
        max_length=120, blank=True, help_text="In words, e.g. “Thursdays at 16:00”."
    )
    place = models.CharField(max_length=200, blank=True, help_text="A room, or blank.")
    video_link = models.URLField(blank=True, help_text="A video call's address, or blank.")
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="Sessions are entered and shown in it, e.g. Europe/Paris.",
    )
    session_minutes = models.PositiveSmallIntegerField(default=60)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="reading_groups"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(session_minutes__gte=1)
                & models.Q(session_minutes__lte=SESSION_MINUTES_MAX),
                name="groups_readinggroup_session_minutes_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("groups:detail", args=[self.pk])

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class Membership(models.Model):
    """A member of a group, and their place in its presenter queue (lowest presents next)."""

    group = models.ForeignKey(ReadingGroup, on_delete=models.CASCADE, related_name="memberships")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_memberships"
    )
    queue_position = models.PositiveIntegerField()
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["group", "queue_position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "member"], name="groups_membership_once"),
        ]

    def __str__(self) -> str:
        return f"{self.member} in {self.group}"


class Session(models.Model):
    group = models.ForeignKey(ReadingGroup, on_delete=models.CASCADE, related_name="sessions")
    starts_at = models.DateTimeField()
    presenter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    papers = models.ManyToManyField(Paper, through="SessionPaper", related_name="+")
    agenda = models.TextField(max_length=AGENDA_MAX_LENGTH, blank=True)
    notes = models.TextField(max_length=NOTES_MAX_LENGTH, blank=True)
    notes_html = models.TextField(blank=True, editable=False)  # as annotations.Note.body_html
    notes_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    notes_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "pk"]
        indexes = [
            # The group page's sessions, the reminders' "starts within" and the feeds
            models.Index(fields=["group", "starts_at"], name="groups_session_group_start"),
            models.Index(fields=["starts_at"], name="groups_session_start"),
        ]

    def __str__(self) -> str:
        return f"{self.group} on {self.local_start:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs) -> None:
        self.notes_html = render_markdown(self.notes)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("groups:session", args=[self.pk])

    @property
    def local_start(self):
        return timezone.localtime(self.starts_at, self.group.zone)

    @property
    def ends_at(self):
        return self.starts_at + timedelta(minutes=self.group.session_minutes)

    @property
    def notes_rendered(self) -> SafeString:
        # Only save() writes notes_html, with render_markdown's output, which escapes every
        # piece of user text itself (annotations.markdown); no user input is marked safe here.
        return mark_safe(self.notes_html)  # noqa: S308


class SessionPaper(models.Model):
    """A paper read in a session, and the comment in the paper's discussion that carries the
    session's notes (groups.services.link_notes); none until there are notes."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="session_papers")
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)
    comment = models.OneToOneField(
        Comment, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["session", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["session", "paper"], name="groups_sessionpaper_once"),
        ]

    def __str__(self) -> str:
        return f"{self.paper} in {self.session}"


class Rsvp(models.Model):
    class Answer(models.TextChoices):
        YES = "yes", "Yes"
        MAYBE = "maybe", "Maybe"
        NO = "no", "No"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="rsvps")
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answer = models.CharField(max_length=5, choices=Answer)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["session", "member"]
        constraints = [
            models.UniqueConstraint(fields=["session", "member"], name="groups_rsvp_once"),
        ]

    def __str__(self) -> str:
        return f"{self.member}: {self.answer} for {self.session}"


class Reminder(Claimable):
    """That `member` is (being) reminded of `session`: one row per pair (the constraint), made
    before any mail, then claimed by the run that mails it (groups.reminders)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="reminders")
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "member"]
        constraints = [
            models.UniqueConstraint(fields=["session", "member"], name="groups_reminder_once"),
        ]

    def __str__(self) -> str:
        return f"reminder of {self.session} to {self.member}"


class CalendarLink(models.Model):
    """A secret address of an .ics feed, the member's own: of one group's sessions, or (no
    group) of every group they are in. Revoking deletes the row: the address answers 404."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_links"
    )
    group = models.ForeignKey(
        ReadingGroup, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    key = models.CharField(max_length=64, unique=True, default=new_calendar_key, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["owner", "group"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "group"], name="groups_calendarlink_one_per_group"
            ),
            models.UniqueConstraint(
                fields=["owner"],
                condition=models.Q(group__isnull=True),
                name="groups_calendarlink_one_for_all",
            ),
        ]

    def __str__(self) -> str:
        return f"calendar of {self.group or 'every group'} for {self.owner}"

    def get_absolute_url(self) -> str:
        return reverse("groups:calendar-feed", args=[self.key])
