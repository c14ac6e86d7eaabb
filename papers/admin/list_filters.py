"""The changelists' filters: by tag kind, yes/no questions, spelling variants, import run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import Exists, OuterRef, Q

from papers.models import ImportConflict, Tag, TagKind
from papers.querysets import spelling_variants

if TYPE_CHECKING:
    pass


class TagKindFilter(admin.SimpleListFilter):
    """Papers carrying one tag of a kind; the choices are the tags of that kind in the DB."""

    kind: str = ""

    def lookups(self, request, model_admin):
        return list(Tag.objects.filter(kind=self.kind).order_by("name").values_list("slug", "name"))

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        # One tag per paper at most, so this join cannot duplicate rows.
        return queryset.filter(paper_tags__tag__kind=self.kind, paper_tags__tag__slug=self.value())


class VenueFilter(TagKindFilter):
    title = "venue"
    parameter_name = "venue"
    kind = TagKind.VENUE


class TrackFilter(TagKindFilter):
    title = "track"
    parameter_name = "track"
    kind = TagKind.TRACK


class YesNoFilter(admin.SimpleListFilter):
    """Yes: the rows where `condition` holds; no: the others."""

    condition: Q

    def lookups(self, request, model_admin):
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(self.condition)
        if self.value() == "no":
            return queryset.exclude(self.condition)
        return queryset


class HasPdfFilter(YesNoFilter):
    title = "has PDF"
    parameter_name = "has_pdf"
    condition = ~Q(pdf_url="")


class ReviewedFilter(YesNoFilter):
    title = "reviewed"
    parameter_name = "reviewed"
    condition = Q(reviewed_at__isnull=False)


class OpenConflictsFilter(YesNoFilter):
    title = "open import conflicts"
    parameter_name = "open_conflicts"
    condition = Q(
        Exists(ImportConflict.objects.filter(paper=OuterRef("pk"), resolved_at__isnull=True))
    )


class SpellingVariantsFilter(admin.SimpleListFilter):
    """Tags another tag of their kind spells differently ("diffusion model", "Diffusion
    models"): the candidates for "merge spelling variants"."""

    title = "spelling variants"
    parameter_name = "variants"

    def lookups(self, request, model_admin):
        return [("yes", "Has spelling variants")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=[pk for group in spelling_variants() for pk in group])
        return queryset


class ImportRunFilter(admin.SimpleListFilter):
    """Papers pointing to one import run, as linked from the import history.

    Listed only while active: the choice is the run in the URL, so the curator sees which run
    the list shows (and can clear it) without the sidebar offering every import ever run.
    """

    parameter_name: str  # each subclass names its foreign key lookup

    def lookups(self, request, model_admin):
        return [(self.value(), f"Import #{self.value()}")] if self.value() else []

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        return queryset.filter(**{self.parameter_name: self.value()})


class CreatedByImportFilter(ImportRunFilter):
    title = "import that created it"
    parameter_name = "created_by_import__id__exact"


class ChangedByImportFilter(ImportRunFilter):
    title = "import that last changed it"
    parameter_name = "changed_by_import__id__exact"
