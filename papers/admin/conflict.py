"""Import conflicts: a source's value that differs from a curator's edit, to settle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import ngettext

from papers.admin.guards import GuardedAdmin
from papers.models import ImportConflict

if TYPE_CHECKING:
    pass


class ConflictStateFilter(admin.SimpleListFilter):
    """Open conflicts by default, and the sidebar says so: "Open" is the choice shown selected
    when the URL names none (the built-in "All" would be highlighted over a list of open ones)."""

    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("resolved", "Resolved"), ("all", "All")]

    def choices(self, changelist):
        yield {
            "selected": self.value() not in ("resolved", "all"),
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": "Open",
        }
        for value, label in self.lookup_choices:
            yield {
                "selected": self.value() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request, queryset):
        if self.value() == "all":
            return queryset
        return queryset.filter(resolved_at__isnull=self.value() != "resolved")


CONFLICT_VALUE_CHARS = 300


@admin.register(ImportConflict)
class ImportConflictAdmin(GuardedAdmin, admin.ModelAdmin):
    """Values imports could not simply apply: a curator's value kept against a source's, or two
    sources that disagree. Each is listed once; a curator settles it on the paper and marks it
    resolved."""

    list_display = ["paper_link", "kind", "field", "source", "line", "short_values", "created_at"]
    list_filter = [ConflictStateFilter, "kind", "field", "source"]
    list_select_related = ["paper"]
    search_fields = ["paper__title", "=paper__forum_id", "source"]
    date_hierarchy = "created_at"
    actions = ["mark_resolved"]
    # Every field is read-only: a conflict records what an import met.
    readonly_fields = fields = (
        "paper_link",
        "kind",
        "field",
        "source",
        "line",
        "previous",
        "incoming",
        "import_run",
        "created_at",
        "resolved_at",
    )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="paper", ordering="paper__title")
    def paper_link(self, conflict: ImportConflict):
        url = reverse("admin:papers_paper_change", args=[conflict.paper_id])
        return format_html('<a href="{}">{}</a>', url, conflict.paper.display_title)

    @admin.display(description="previous → incoming")
    def short_values(self, conflict: ImportConflict) -> str:
        # Long enough to tell apart two links that differ at their end; the column wraps.
        previous = Truncator(conflict.previous).chars(CONFLICT_VALUE_CHARS)
        incoming = Truncator(conflict.incoming).chars(CONFLICT_VALUE_CHARS)
        return f"{previous or '(none)'} → {incoming}"

    def has_resolve_permission(self, request: HttpRequest) -> bool:
        # Settling a conflict means editing the paper: whoever may do that may resolve it.
        return request.user.has_perm("papers.change_paper")

    @admin.action(description="Mark resolved", permissions=["resolve"])
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ImportConflict]) -> None:
        count = queryset.filter(resolved_at__isnull=True).update(resolved_at=timezone.now())
        message = ngettext(
            "Marked %(count)d conflict resolved.", "Marked %(count)d conflicts resolved.", count
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)
