"""Reviews as imported: read only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from papers.admin.guards import ReadOnlyAdmin
from papers.models import Review

if TYPE_CHECKING:
    pass


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    """Reviews as the importer stored them: read only, since each paper's summary (decision,
    mean rating) is derived from them and a re-import would bring an edit back."""

    list_display = ["note_id", "paper", "kind", "rating", "confidence", "decision", "created"]
    list_filter = ["kind"]
    list_select_related = ["paper"]
    search_fields = ["=note_id", "=paper__forum_id", "decision"]
    list_per_page = 50
