"""Reviews as imported: read only."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html_join

from papers.admin.guards import ReadOnlyAdmin
from papers.models import Review


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    """Reviews as the importer stored them: read only, since each paper's summary (decision,
    mean rating) is derived from them and a re-import would bring an edit back."""

    list_display = [
        "note_id",
        "paper",
        "kind",
        "rating",
        "confidence",
        "decision",
        "visibility",
        "created",
    ]
    list_filter = ["kind", "visibility"]
    list_select_related = ["paper"]
    search_fields = ["=note_id", "=paper__forum_id", "decision"]
    list_per_page = 50


class ReviewInline(admin.StackedInline):
    """A paper's reviews on its change page, read only, as ReviewAdmin shows them."""

    model = Review
    readonly_fields = [
        "note_id",
        "source",
        "kind",
        "reviewer",
        "rating",
        "rating_label",
        "confidence",
        "confidence_label",
        "decision",
        "visibility",
        "readers",
        "created",
        "modified",
        "text_fields",
    ]
    fields = list(readonly_fields)  # read only, in this order
    ordering = ["kind", "created", "pk"]
    extra = 0
    classes = ["collapse"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="texts")
    def text_fields(self, review: Review) -> str:
        return format_html_join(
            "", "<p><strong>{}</strong><br>{}</p>", ((name, text) for name, text in review.texts)
        )
