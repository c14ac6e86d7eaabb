from __future__ import annotations

from django import forms
from django.contrib import admin

from papers.admin.guards import GuardedAdmin, ReadOnlyAdmin
from zotero.models import Collection, Item, Library


class LibraryForm(forms.ModelForm):
    # Write-only: the stored key is never sent back to a page; left blank, it is kept.
    api_key = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Blank keeps the stored key (or ZOTERO_API_KEY from the environment).",
    )

    class Meta:
        model = Library
        fields = ["group_id", "api_key", "member", "enabled"]

    def clean_api_key(self) -> str:
        key = self.cleaned_data["api_key"].strip()
        return key or (self.instance.api_key if self.instance.pk else "")


@admin.register(Library)
class LibraryAdmin(GuardedAdmin, admin.ModelAdmin):
    form = LibraryForm
    list_display = ["group_id", "member", "enabled", "version", "last_pulled_at", "last_outcome"]
    readonly_fields = ["version", "last_pulled_at", "last_outcome"]
    raw_id_fields = ["member"]


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["key", "item_type", "library", "version", "paper"]
    list_filter = ["item_type"]
    exclude = ["data", "note"]


@admin.register(Collection)
class CollectionAdmin(ReadOnlyAdmin):
    list_display = ["name", "key", "library", "reading_list"]
