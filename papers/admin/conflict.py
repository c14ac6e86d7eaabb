"""Import conflicts: a value an import could not simply apply, for a curator to settle.

Each shows the current and the incoming value as a word diff (the list, a short one), and is
settled by "Keep current" or "Take incoming" on its page or as a bulk action
(papers.conflicts): who, when and which is recorded on the conflict and in the paper's history.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from papers.admin.guards import GuardedAdmin
from papers.conflicts import Refusal, Resolution, settle_conflicts
from papers.models import ImportConflict
from papers.word_diff import diff_html, short_diff


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


# What each settling choice is called on the page and in messages.
CHOICES = {
    Resolution.KEPT: "Keep current",
    Resolution.TAKEN: "Take incoming",
    Resolution.MARKED: "Mark resolved",
}


@admin.register(ImportConflict)
class ImportConflictAdmin(GuardedAdmin, admin.ModelAdmin):
    """Values imports could not simply apply: a curator's value kept against a source's, or two
    sources that disagree. Each is listed once, with a short word diff."""

    list_display = ["paper_link", "kind", "field", "source", "line", "changes", "created_at"]
    list_filter = [ConflictStateFilter, "kind", "field", "source", "resolution"]
    list_select_related = ["paper"]
    search_fields = ["paper__title", "=paper__forum_id", "source"]
    date_hierarchy = "created_at"
    actions = ["keep_current", "take_incoming", "mark_resolved"]
    change_form_template = "admin/papers/importconflict/change_form.html"

    # Every field is read-only: a conflict records what an import met, and how it was settled.
    readonly_fields = fields = (
        "paper_link",
        "kind",
        "field",
        "source",
        "line",
        "values_diff",
        "previous",
        "incoming",
        # An author list's or tags' values as settling writes them (papers.conflicts).
        "previous_data",
        "incoming_data",
        "import_run",
        "created_at",
        "resolved_at",
        "resolution",
        "resolved_by",
        "superseded_by",
    )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_resolve_permission(self, request: HttpRequest) -> bool:
        # Settling a conflict means editing the paper: whoever may do that may resolve it.
        return request.user.has_perm("papers.change_paper")

    @admin.display(description="paper", ordering="paper__title")
    def paper_link(self, conflict: ImportConflict):
        url = reverse("admin:papers_paper_change", args=[conflict.paper_id])
        return format_html('<a href="{}">{}</a>', url, conflict.paper.display_title)

    @admin.display(description="current → incoming")
    def changes(self, conflict: ImportConflict):
        return format_html(
            '<span class="word-diff">{}</span>', short_diff(conflict.previous, conflict.incoming)
        )

    @admin.display(description="current → incoming, word by word")
    def values_diff(self, conflict: ImportConflict):
        return format_html(
            '<div class="word-diff">{}</div>', diff_html(conflict.previous, conflict.incoming)
        )

    # Settling

    def get_urls(self):
        settle = self.admin_site.admin_view(require_POST(self.settle_view))
        return [
            path("<path:object_id>/settle/", settle, name="papers_importconflict_settle"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = {
            "settle_choices": list(CHOICES.items()),
            "may_settle": self.has_resolve_permission(request),
            **(extra_context or {}),
        }
        return super().change_view(request, object_id, form_url, extra)

    def settle_view(self, request: HttpRequest, object_id: str):
        if not self.has_resolve_permission(request):
            raise PermissionDenied
        conflict = get_object_or_404(self.get_queryset(request), pk=unquote(object_id))
        resolution = request.POST.get("resolution", "")
        if resolution not in CHOICES:
            self.message_user(request, "Choose how to settle the conflict.", messages.ERROR)
        else:
            self._settle(request, ImportConflict.objects.filter(pk=conflict.pk), resolution)
        return HttpResponseRedirect(
            reverse("admin:papers_importconflict_change", args=[conflict.pk])
        )

    @admin.action(description="Keep current values", permissions=["resolve"])
    def keep_current(self, request: HttpRequest, queryset: QuerySet[ImportConflict]) -> None:
        self._settle(request, queryset, Resolution.KEPT)

    @admin.action(description="Take incoming values", permissions=["resolve"])
    def take_incoming(self, request: HttpRequest, queryset: QuerySet[ImportConflict]) -> None:
        self._settle(request, queryset, Resolution.TAKEN)

    @admin.action(description="Mark resolved", permissions=["resolve"])
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ImportConflict]) -> None:
        self._settle(request, queryset, Resolution.MARKED)

    def _settle(self, request: HttpRequest, queryset: QuerySet[ImportConflict], resolution) -> None:
        user = request.user if isinstance(request.user, User) else None
        ids = queryset.values_list("pk", flat=True)
        result = settle_conflicts(ids, resolution=resolution, user=user)
        choice = CHOICES[resolution]
        for conflict in result.done:
            # The paper's history says what a curator chose, and from which source.
            self.log_change(
                request,
                conflict.paper,
                f"Import conflict #{conflict.pk} ({conflict.field}, {conflict.source}): "
                f"{choice.lower()}.",
            )
        message = ngettext(
            "%(choice)s: %(count)d conflict settled.",
            "%(choice)s: %(count)d conflicts settled.",
            result.settled,
        ) % {"choice": choice, "count": result.settled}
        self.message_user(request, message, messages.SUCCESS)
        for refusal in result.refused:
            self.message_user(request, refusal_message(refusal), messages.WARNING)


def refusal_message(refusal: Refusal) -> str:
    """Why a conflict was left as it was, with where to go instead: the newer conflict about
    its field, or the paper whose field was changed by hand."""
    if refusal.newer_id is not None:
        url = reverse("admin:papers_importconflict_change", args=[refusal.newer_id])
        return format_html(
            '{} Settle the newer one: <a href="{}">conflict #{}</a>.',
            str(refusal),
            url,
            refusal.newer_id,
        )
    if refusal.changed_since:
        url = reverse("admin:papers_paper_change", args=[refusal.paper_id])
        return format_html(
            '{} See <a href="{}">the paper</a>, or mark the conflict resolved.', str(refusal), url
        )
    return str(refusal)
