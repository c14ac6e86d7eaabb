"""The guards every admin of the catalogue stands behind: lookups into private data refused,
private objects hidden on the delete page, a bounded search box, hand-made numbers refused;
and the bases built on them (MergingAdmin, ReadOnlyAdmin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.http import HttpRequest

from papers.admin.deletion import HidesPrivateObjectsOnDelete
from papers.admin.numbers import GuardsNumbers
from papers.admin.privacy import RefusesLookupsIntoPrivateData

if TYPE_CHECKING:
    pass


# Longer than any title or name: bounds the LIKE patterns a pasted essay would make (SQLite
# refuses one over 50,000 bytes, with a server error).
MAX_ADMIN_SEARCH_CHARS = 1_000


class BoundedSearch:
    """ModelAdmin mixin: the search box reads at most MAX_ADMIN_SEARCH_CHARS characters (an
    admin overriding get_search_results cuts the term itself before using it)."""

    def get_search_results(self, request, queryset, search_term):
        search_term = search_term[:MAX_ADMIN_SEARCH_CHARS]
        return super().get_search_results(request, queryset, search_term)  # type: ignore[misc]


class GuardedAdmin(
    RefusesLookupsIntoPrivateData, HidesPrivateObjectsOnDelete, BoundedSearch, GuardsNumbers
):
    """ModelAdmin mixin: the guards of every admin a curator edits in (lookups into private
    data refused, private objects hidden on the delete page, a bounded search box, the
    numbers of hand-made requests refused: date filters, action selections, choices)."""


class MergingAdmin(GuardedAdmin, admin.ModelAdmin):
    """An admin with a merge action (permissions=["merge"]: papers, authors, tags)."""

    def has_merge_permission(self, request: HttpRequest) -> bool:
        # Not permissions=["change", "delete"]: Django offers an action to anyone with any one
        # of its permissions, and a merge both changes the kept object and deletes the others.
        return self.has_change_permission(request) and self.has_delete_permission(request)


class ReadOnlyAdmin(RefusesLookupsIntoPrivateData, BoundedSearch, GuardsNumbers, admin.ModelAdmin):
    """What the site records by itself: listed and shown, never added, edited or deleted."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
