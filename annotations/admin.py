"""Admin for what lab members share: shared reading lists and comment moderation.

Private things stay private here too: notes are not in the admin at all, and a private reading
list is listed only to its owner, superusers included (DESIGN: another member's private object
is 404 whatever the URL). Paper and user fields use autocomplete pickers: a <select> of 100,000
papers would not load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import ngettext
from django_tasks_db.models import DBTaskResult

from annotations.models import (
    Comment,
    Notification,
    NotificationKind,
    ReadingList,
    ReadingListItem,
)
from papers.admin.common import related_count
from papers.admin.guards import GuardedAdmin
from papers.admin.numbers import GuardsNumbers
from papers.admin.pickers import PreloadedPickersAdmin, PreloadedPickersForm

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

EXCERPT_LENGTH = 80


class ItemCount(TypedDict):
    """What ReadingListAdmin's changelist annotates each list with."""

    item_count: int


def excerpt(text: str) -> str:
    # Returned as plain text: the changelist escapes it like any other value.
    return Truncator(" ".join(text.split())).chars(EXCERPT_LENGTH)


class ReadingListItemInline(PreloadedPickersAdmin, admin.TabularInline):
    model = ReadingListItem
    form = PreloadedPickersForm
    fields = ["position", "paper", "status", "priority"]
    autocomplete_fields = ["paper"]
    ordering = ["position", "pk"]
    extra = 0

    def get_queryset(self, request):
        # Each row shows "<paper> in <list>" and picks its paper: load both with the rows.
        return super().get_queryset(request).select_related("paper", "reading_list")


@admin.register(ReadingList)
class ReadingListAdmin(GuardedAdmin, PreloadedPickersAdmin, admin.ModelAdmin):
    list_display = ["name", "owner", "visibility", "item_count", "updated_at"]
    list_select_related = ["owner"]
    list_filter = ["visibility", "updated_at"]
    search_fields = ["name", "description", "owner__username"]
    autocomplete_fields = ["owner"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [ReadingListItemInline]
    list_per_page = 100
    show_full_result_count = False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            # The site's rule: a curator sees in admin the lists they may read on the site.
            .visible_to(request.user)  # type: ignore[attr-defined]
            .annotate(item_count=related_count(ReadingListItem, "reading_list"))
        )

    @admin.display(description="papers", ordering="item_count")
    def item_count(self, reading_list: WithAnnotations[ReadingList, ItemCount]) -> int:
        return reading_list.item_count


class RemovedFilter(admin.SimpleListFilter):
    title = "removed"
    parameter_name = "removed"

    def lookups(self, request, model_admin):
        return [("yes", "Removed"), ("no", "Visible")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(removed_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(removed_at__isnull=True)
        return queryset


@admin.register(Comment)
class CommentAdmin(GuardedAdmin, PreloadedPickersAdmin, admin.ModelAdmin):
    list_display = [
        "body_excerpt",
        "author",
        "paper",
        "reply_to",
        "created_at",
        "is_removed",
        "removed_by",
    ]
    list_select_related = ["author", "paper", "removed_by"]
    list_filter = [RemovedFilter, "created_at"]
    date_hierarchy = "created_at"
    search_fields = ["body", "paper__title", "author__username"]
    autocomplete_fields = ["author", "paper"]
    raw_id_fields = ["parent"]
    readonly_fields = ["created_at", "updated_at", "edited_at", "removed_at", "removed_by"]
    actions = ["remove_comments", "restore_comments"]
    list_per_page = 100
    show_full_result_count = False

    @admin.display(description="comment")
    def body_excerpt(self, comment: Comment) -> str:
        return excerpt(comment.body)

    @admin.display(description="reply to", ordering="parent")
    def reply_to(self, comment: Comment) -> str:
        # The parent's id, not its __str__: that would read its author and paper on every row.
        return f"#{comment.parent_id}" if comment.parent_id else ""

    @admin.display(description="removed", boolean=True, ordering="removed_at")
    def is_removed(self, comment: Comment) -> bool:
        return comment.is_removed

    @admin.action(
        description="Remove selected comments (the thread shows “comment removed”)",
        permissions=["change"],
    )
    def remove_comments(self, request: HttpRequest, queryset: QuerySet[Comment]) -> None:
        now = timezone.now()
        count = queryset.filter(removed_at__isnull=True).update(
            removed_at=now, removed_by=request.user, updated_at=now
        )
        message = ngettext("Removed %(count)d comment.", "Removed %(count)d comments.", count)
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(description="Restore selected comments", permissions=["change"])
    def restore_comments(self, request: HttpRequest, queryset: QuerySet[Comment]) -> None:
        removed = queryset.filter(removed_at__isnull=False)
        # A withdrawn comment's text is gone for good (a highlight made private or deleted):
        # restoring it would show an empty comment, or once showed the private text.
        withdrawn = removed.filter(body="").count()
        count = removed.exclude(body="").update(
            removed_at=None, removed_by=None, updated_at=timezone.now()
        )
        message = ngettext("Restored %(count)d comment.", "Restored %(count)d comments.", count)
        self.message_user(request, message % {"count": count}, messages.SUCCESS)
        if withdrawn:
            message = ngettext(
                "%(count)d comment was withdrawn with its text and cannot be restored.",
                "%(count)d comments were withdrawn with their text and cannot be restored.",
                withdrawn,
            )
            self.message_user(request, message % {"count": withdrawn}, messages.WARNING)

    def get_readonly_fields(self, request: HttpRequest, obj: Comment | None = None):
        # A withdrawn comment has no text to edit, and an empty body would not validate.
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "body"] if obj is not None and obj.is_withdrawn else fields


@admin.register(Notification)
class NotificationAdmin(GuardedAdmin, admin.ModelAdmin):
    """Read-only: notifications are made by the discussion service, never by hand."""

    list_display = ["recipient", "kind", "comment_excerpt", "created_at", "read_at"]
    list_select_related = ["recipient", "comment"]
    list_filter = ["kind", "created_at"]
    search_fields = ["recipient__username"]
    raw_id_fields = ["recipient", "comment"]
    list_per_page = 100
    show_full_result_count = False

    def get_queryset(self, request):
        # Another member's "paper in your reading lists", list-change and suggestion notices
        # would show their private lists and suggestions (see Notification.is_private_from).
        private = [
            NotificationKind.LISTED_PAPER,
            NotificationKind.LIST_CHANGE,
            NotificationKind.SUGGESTION,
        ]
        return (
            super()
            .get_queryset(request)
            .exclude(Q(kind__in=private) & ~Q(recipient_id=request.user.pk))
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.display(description="comment")
    def comment_excerpt(self, notification: Notification) -> str:
        return excerpt(notification.comment.body) if notification.comment else ""


# Importing django.contrib.auth.admin registered its UserAdmin; this replaces it so that deleting
# a member lists their notes, private lists and saved searches by kind only.
admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class MemberAdmin(GuardedAdmin, UserAdmin):
    pass


admin.site.unregister(Group)


# The stubs type GroupAdmin for Group alone; the guards are written for any model.
@admin.register(Group)
class MemberGroupAdmin(GuardedAdmin, GroupAdmin):  # type: ignore[misc]
    pass


# django-axes' login records (a date hierarchy and a delete action on each) and django-tasks'
# task results (dates to filter on) get the same bounds on the numbers of a hand-made request
# as ours.
for _model in (AccessAttempt, AccessLog, AccessFailureLog, DBTaskResult):
    _axes_admin = type(admin.site.get_model_admin(_model))
    admin.site.unregister(_model)
    admin.site.register(_model, type(_axes_admin.__name__, (GuardsNumbers, _axes_admin), {}))
