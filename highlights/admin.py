"""Highlights in the admin: curators see the lab's (and their own), never another member's
private ones, as reading lists (annotations.admin). Nothing is added or edited by hand: a
highlight's selectors come from the reader. Deleting one goes through the service, so a lab
highlight's comment is removed with it."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from annotations.admin import excerpt
from highlights import services
from highlights.models import Highlight, HighlightVisibility
from papers.admin.guards import GuardedAdmin


@admin.register(Highlight)
class HighlightAdmin(GuardedAdmin, admin.ModelAdmin):
    list_display = ["quote", "author", "paper", "page", "visibility", "orphaned", "created_at"]
    list_select_related = ["author", "paper"]
    list_filter = ["visibility", "orphaned", "created_at"]
    search_fields = ["exact", "note", "paper__title", "author__username"]
    fields = readonly_fields = (
        "paper",
        "author",
        "visibility",
        "page",
        "exact",
        "prefix",
        "suffix",
        "start",
        "end",
        "note",
        "orphaned",
        "pdf_sha256",
        "anchored_by",
        "anchored_at",
        "comment",
        "created_at",
        "updated_at",
    )
    list_per_page = 100
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Highlight]:
        # Superusers included: another member's private highlight is 404 here as everywhere.
        return (
            super()
            .get_queryset(request)
            .filter(Q(visibility=HighlightVisibility.LAB) | Q(author=request.user))
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="quote")
    def quote(self, highlight: Highlight) -> str:
        return excerpt(highlight.exact)

    def delete_model(self, request: HttpRequest, obj: Highlight) -> None:
        services.delete_highlight(highlight=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Highlight]) -> None:
        for highlight in queryset.select_related("comment"):
            services.delete_highlight(highlight=highlight)
