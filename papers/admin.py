"""Admin for curators: a paper changelist that scales, a curation queue, author merging, and
the import history.

Over 600 lines: the paper, author and import-history admins still share this module; issue 29
splits admin by concern (feeds, numbers, deletion and privacy already live beside it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, TypedDict

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import BaseModelAdmin
from django.contrib.admin.utils import model_ngettext
from django.contrib.admin.views.main import ChangeList
from django.contrib.admin.widgets import AutocompleteSelect
from django.db import models, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Length
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import ngettext

from papers import services
from papers.admin_deletion import HidesPrivateObjectsOnDelete
from papers.admin_numbers import GuardsNumbers
from papers.admin_privacy import RefusesLookupsIntoPrivateData
from papers.models import (
    UNTITLED_PLACEHOLDER,
    Author,
    Authorship,
    ImportConflict,
    ImportRun,
    Paper,
    PaperTag,
    Review,
    SearchChange,
    Tag,
    TagAlias,
    TagKind,
)
from papers.numbers import fits_field
from papers.querysets import PaperQuerySet, spelling_variants
from papers.suggest import identifier_lookups, papers_worded_like
from papers.text import (
    forum_id_from_url,
    is_arxiv_id,
    is_doi,
    is_forum_id,
    normalize_arxiv_id,
    normalize_author_name,
    normalize_doi,
    tag_key,
    tag_slug,
)

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# Paper fields whose curator edits a re-import must not overwrite. The authorship and tag
# inlines are recorded as services.AUTHORS_EDIT ("authors") and services.TAGS_EDIT ("tags").
TRACKED_FIELDS = ("title", "abstract", "forum_id", "forum_url", "pdf_url", "year")
AUTHORS_EDIT = services.AUTHORS_EDIT
TAGS_EDIT = services.TAGS_EDIT

FIRST_AUTHORS_SHOWN = 3
MAX_AUTHOR_POSITION = 9_999
MAX_AUTHORS_MERGED = 20
MAX_PAPERS_MERGED = 10
MAX_TAGS_MERGED = 20
MAX_TAGS_CHECKED_FOR_VARIANTS = 5_000
# Papers a search adds by their accent-folded title words, best first (a few pages).
FOLDED_TITLE_MATCHES = 200
CURATION_QUEUE_QUERY = "needs_curation__exact=1"


class PaperCount(TypedDict):
    """What related_count(..., fk) annotates an author's or a tag's changelist rows with."""

    paper_count: int


def related_count(model: type[models.Model], fk: str) -> Coalesce:
    """Count rows of `model` pointing at each listed object, as a correlated subquery.

    Unlike Count() over a join, it leaves the changelist's COUNT(*) a plain count of the
    table, and runs only for the rows of the page shown.
    """
    counts = (
        model._default_manager.filter(**{fk: OuterRef("pk")})
        .order_by()
        .values(fk)
        .annotate(n=Count("*"))
        .values("n")
    )
    return Coalesce(Subquery(counts), 0)


def curation_queue_url() -> str:
    return f"{reverse('admin:papers_paper_changelist')}?{CURATION_QUEUE_QUERY}"


def is_missing_title_reason(reason: str) -> bool:
    """Whether a curation reason is about the title (or there is none to keep)."""
    return not reason.strip() or "title" in reason.casefold()


# --- Changelist filters -----------------------------------------------------------------


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


# --- Paper ------------------------------------------------------------------------------


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


class PreloadedAutocompleteSelect(AutocompleteSelect):
    """The admin's autocomplete picker, but a row's saved choice is labelled from the object
    its form already holds (an inline loads it with the rows) instead of a query per row: a
    paper with 2,000 authors opened 2,000 queries."""

    preloaded: models.Model | None = None  # set per form by PreloadedPickersForm

    def optgroups(self, name, value, attr=None):
        chosen = self.preloaded
        selected = [str(v) for v in value if str(v) not in self.choices.field.empty_values]
        if chosen is None or selected != [str(chosen.pk)]:  # a new row, or a new choice
            # A forged choice ("abc") comes back with its error; Django's own lookup of the
            # value to show would fail on it with a server error.
            key_field = self.field.target_field
            keys = [v for v in value if fits_field(key_field, v)]
            return super().optgroups(name, keys, attr)
        options = []
        if not self.is_required:
            options.append(self.create_option(name, "", "", False, 0))
        label = self.choices.field.label_from_instance(chosen)
        options.append(self.create_option(name, chosen.pk, label, True, len(options)))
        return [(None, options, 0)]


class PreloadedPickersForm(forms.ModelForm):
    """A form whose autocomplete pickers show the saved object its instance holds."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            return
        for name, field in self.fields.items():
            widget = getattr(field.widget, "widget", field.widget)  # inside the admin's wrapper
            if isinstance(widget, PreloadedAutocompleteSelect):
                widget.preloaded = getattr(self.instance, name)


class PreloadedPickersAdmin(BaseModelAdmin):
    """Autocomplete pickers as PreloadedAutocompleteSelect. With PreloadedPickersForm as the
    form (and an inline's get_queryset selecting the picked objects with the rows), a saved
    choice is labelled without a query."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = PreloadedAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class AuthorshipForm(PreloadedPickersForm):
    class Meta:
        model = Authorship
        fields = ["position", "author"]

    def clean_position(self) -> int:
        position = self.cleaned_data["position"]
        if position > MAX_AUTHOR_POSITION:
            raise forms.ValidationError(f"Use a position up to {MAX_AUTHOR_POSITION}.")
        return position


class AuthorshipFormSet(forms.BaseInlineFormSet):
    def validate_unique(self) -> None:
        """Refuse the same author twice, but let two rows name one position: a curator
        inserting an author types the place it goes, and services.save_authorships moves the
        others down (Django's check would demand renumbering every later row first)."""
        seen: set[int] = set()
        repeated = False
        for form in self.forms:
            if form in self.deleted_forms or not form.is_valid():
                continue
            author = form.cleaned_data.get("author")
            if author is None:
                continue
            if author.pk in seen:
                form.add_error("author", f"{author.name} is already listed on this paper.")
                repeated = True
            seen.add(author.pk)
        if repeated:
            raise forms.ValidationError("Please correct the duplicate author below.")


class PartOfPaperInline(PreloadedPickersAdmin, admin.TabularInline):
    """Rows that make up a paper (its ordered authors, its tags): whoever may change the paper
    edits them, as Django does for an auto-created many-to-many table. They have no admin of
    their own, so no curator is ever given their permissions."""

    form = PreloadedPickersForm

    def _may_change_paper(self, request) -> bool:
        return self.admin_site._registry[Paper].has_change_permission(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return self.admin_site._registry[Paper].has_view_permission(request, obj)

    def has_add_permission(self, request, obj=None) -> bool:
        return self._may_change_paper(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return self._may_change_paper(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._may_change_paper(request)


class AuthorshipInline(PartOfPaperInline):
    model = Authorship
    form = AuthorshipForm
    formset = AuthorshipFormSet
    fields = ["position", "author"]
    autocomplete_fields = ["author"]
    ordering = ["position"]
    extra = 1
    verbose_name = "author"
    verbose_name_plural = (
        "authors (in order from 0; a position another row holds inserts there, the rest move"
        " down; renumbered on save)"
    )

    def get_queryset(self, request):
        # Each row prints "<author> on <paper>": load both with the rows.
        return super().get_queryset(request).select_related("author", "paper")


class PaperTagInline(PartOfPaperInline):
    model = PaperTag
    fields = ["tag", "added_by"]
    readonly_fields = ["added_by"]
    autocomplete_fields = ["tag"]
    extra = 1
    verbose_name = "tag"
    verbose_name_plural = "tags (venue, track, lab)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("tag", "added_by", "paper")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "tag":
            kwargs["form_class"] = TagChoiceField
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class TagChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Tag) -> str:
        # Tag names repeat across kinds ("Oral" the track, "oral" a lab tag): say which one.
        return f"{obj.name} ({obj.get_kind_display()})"


class PaperChangeList(ChangeList):
    def get_queryset(self, request, exclude_parameters=None):
        queryset = super().get_queryset(request, exclude_parameters)
        assert isinstance(queryset, PaperQuerySet)  # PaperAdmin's, filtered
        # Authors and tags for the whole page in two queries, whatever the page size.
        return queryset.for_listing()


class PaperForm(forms.ModelForm):
    """Identifiers as the importer stores them (papers.importing.records), since an import
    finds a paper again by them: a DOI typed in capitals, "arXiv:2310.01234v2" or a pasted
    forum URL would never match the next import's record, which would then add the paper a
    second time."""

    class Meta:
        model = Paper
        # The admin adds the fields of its fieldsets.
        fields = ["forum_id", "arxiv_id", "doi"]

    def clean_forum_id(self) -> str:
        value = self.cleaned_data["forum_id"].strip()
        if value and not is_forum_id(value):
            value = forum_id_from_url(value) or value  # a pasted forum or PDF link
        if value and not is_forum_id(value):
            raise forms.ValidationError(
                "Enter an OpenReview forum id (letters, digits, - and _) or a forum link."
            )
        return value

    def clean_arxiv_id(self) -> str:
        value = normalize_arxiv_id(self.cleaned_data["arxiv_id"])
        if value and not is_arxiv_id(value):
            raise forms.ValidationError("Enter an arXiv id such as 2310.01234 or hep-th/9901001.")
        return value

    def clean_doi(self) -> str:
        value = normalize_doi(self.cleaned_data["doi"])
        if value and not is_doi(value):
            raise forms.ValidationError("Enter a DOI such as 10.1234/abc (a doi.org link works).")
        return value


@admin.register(Paper)
class PaperAdmin(MergingAdmin):
    list_display = [
        "title_or_placeholder",
        "first_authors",
        "venue",
        "track",
        "needs_curation",
        "curation_reason",
        "reviewed",
        "has_pdf",
        "forum_link",
        "updated_at",
    ]
    list_display_links = ["title_or_placeholder"]
    list_filter = [
        TrackFilter,
        VenueFilter,
        "needs_curation",
        HasPdfFilter,
        ReviewedFilter,
        OpenConflictsFilter,
        CreatedByImportFilter,
        ChangedByImportFilter,
    ]
    search_fields = [
        "title",
        "abstract",
        "authorships__author__name",
        "=forum_id",
        "=arxiv_id",
        "=doi",
    ]
    search_help_text = (
        "Title, abstract or author name words; or a paper #number, forum id, arXiv id or DOI "
        "(an OpenReview, arXiv or DOI link works too)."
    )
    form = PaperForm
    list_per_page = 50
    # An exact total over 100,000 rows costs a second COUNT on every filtered page.
    show_full_result_count = False
    inlines = [AuthorshipInline, PaperTagInline]
    actions = ["mark_reviewed", "flag_for_curation", "forget_curator_edits", "merge_papers"]
    readonly_fields = [
        "reviewed_at",
        "curator_edited_fields",
        "open_import_conflicts",
        "author_names",
        "created_at",
        "updated_at",
        "created_by_import",
        "changed_by_import",
    ]
    fieldsets = [
        (None, {"fields": ["title", "abstract", "year"]}),
        ("Links", {"fields": ["forum_id", "forum_url", "pdf_url", "arxiv_id", "doi"]}),
        (
            "Curation",
            {
                "fields": [
                    "needs_curation",
                    "curation_reason",
                    "reviewed_at",
                    "curator_edited_fields",
                    "open_import_conflicts",
                ]
            },
        ),
        (
            "Record",
            {
                "fields": [
                    "author_names",
                    "created_at",
                    "updated_at",
                    "created_by_import",
                    "changed_by_import",
                ]
            },
        ),
    ]

    # Curators paste "openreview.net/forum?id=..." without a scheme.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_changelist(self, request, **kwargs):
        return PaperChangeList

    def get_search_results(self, request, queryset, search_term):
        search_term = search_term[:MAX_ADMIN_SEARCH_CHARS]
        if request.resolver_match and request.resolver_match.url_name == "autocomplete":
            # Pickers elsewhere in admin look papers up by title or forum id; scanning
            # abstracts and author joins for every keystroke is wasted work.
            return _search_title_or_forum(queryset, search_term), False
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        if not search_term.strip():
            return found, may_have_duplicates
        # Django matches each word on its own, so what curators paste finds nothing: an
        # OpenReview URL, "arXiv:2310.01234v2", a DOI link or "#12" (the curation queue's
        # "possible duplicate of #12"), or an author spelled "Christopher D. Manning" where
        # the catalogue has "Christopher D Manning". Add what the whole term names.
        named = Q(pk__in=_papers_by_author_name(search_term))
        # Titles as the search index folds them: "schrodinger" finds "Schrödinger".
        named |= Q(pk__in=papers_worded_like(search_term, limit=FOLDED_TITLE_MATCHES))
        for lookup in identifier_lookups(search_term):
            named |= lookup
        return found | queryset.filter(named), may_have_duplicates

    # Columns

    @admin.display(description="title", ordering="title")
    def title_or_placeholder(self, paper: Paper) -> str:
        if paper.title:
            return Truncator(paper.title).chars(120)
        return format_html("<em>{}</em>", paper.display_title)

    @admin.display(description="authors", ordering="author_names")
    def first_authors(self, paper: Paper) -> str:
        names = [row.author.name for row in paper.authorships.all()]
        shown = ", ".join(names[:FIRST_AUTHORS_SHOWN])
        if len(names) > FIRST_AUTHORS_SHOWN:
            shown += f" et al. ({len(names)})"
        return shown

    @admin.display(description="venue")
    def venue(self, paper: Paper) -> str:
        return _tag_names(paper, TagKind.VENUE)

    @admin.display(description="track")
    def track(self, paper: Paper) -> str:
        return _tag_names(paper, TagKind.TRACK)

    @admin.display(description="reviewed", boolean=True, ordering="reviewed_at")
    def reviewed(self, paper: Paper) -> bool:
        return paper.reviewed_at is not None

    @admin.display(description="PDF", boolean=True)
    def has_pdf(self, paper: Paper) -> bool:
        return bool(paper.pdf_url)

    @admin.display(description="OpenReview", ordering="forum_id")
    def forum_link(self, paper: Paper) -> str:
        url = paper.forum_url
        if not url and paper.forum_id:
            url = f"https://openreview.net/forum?id={paper.forum_id}"
        # Imported URLs skip form validation: never link a javascript: or data: URL.
        if not url.startswith(("https://", "http://")):
            return paper.forum_id or "-"
        return format_html(
            '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>',
            url,
            paper.forum_id or "forum",
        )

    # Actions

    @admin.display(description="open import conflicts")
    def open_import_conflicts(self, paper: Paper):
        conflicts = paper.import_conflicts.filter(resolved_at__isnull=True)
        rows = [
            (
                reverse("admin:papers_importconflict_change", args=[c.pk]),
                c.get_kind_display(),
                c.field,
                c.source,
                Truncator(c.previous).chars(80) or "(none)",
                Truncator(c.incoming).chars(80),
            )
            for c in conflicts
        ]
        if not rows:
            return "-"
        return format_html_join("", '<p><a href="{}">{}: {}</a> ({}): {} → {}</p>', rows)

    @admin.action(description="Mark reviewed (leave the curation queue)", permissions=["change"])
    def mark_reviewed(self, request: HttpRequest, queryset: QuerySet[Paper]) -> None:
        count = services.mark_reviewed(papers=queryset)
        message = ngettext(
            "Marked %(count)d paper reviewed.", "Marked %(count)d papers reviewed.", count
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(description="Flag for curation", permissions=["change"])
    def flag_for_curation(self, request: HttpRequest, queryset: QuerySet[Paper]) -> None:
        reason = f"Flagged by {request.user.get_username()}"
        queryset.filter(curation_reason="").update(curation_reason=reason)
        # Back in the queue is no longer reviewed: the reviewed filter and duplicate flagging
        # go by reviewed_at.
        count = queryset.update(needs_curation=True, reviewed_at=None)
        message = ngettext(
            "Flagged %(count)d paper for curation.", "Flagged %(count)d papers for curation.", count
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(
        description="Let re-imports update curator-edited fields again", permissions=["change"]
    )
    def forget_curator_edits(self, request: HttpRequest, queryset: QuerySet[Paper]) -> None:
        count = services.forget_curator_edits(papers=queryset)
        message = ngettext(
            "Cleared curator edits on %(count)d paper.",
            "Cleared curator edits on %(count)d papers.",
            count,
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(description="Merge selected papers into one", permissions=["merge"])
    def merge_papers(self, request: HttpRequest, queryset: QuerySet[Paper]) -> HttpResponse | None:
        papers = queryset.order_by("pk")
        if _merge_size_refused(self, request, papers.count(), MAX_PAPERS_MERGED):
            return None
        try:
            form, done = _confirmed_merge(
                self, request, MergePapersForm, papers, services.merge_papers
            )
        except services.MergeRefused as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
            return None
        if done:
            return None
        shown = _with_related_counts(list(papers.prefetch_related("authorships__author")))
        private = services.private_annotation_kinds()
        return _merge_page(self, request, form, shown, papers=shown, private_kinds=private)

    # Saving

    def save_model(self, request, obj: Paper, form, change: bool) -> None:
        if change and self._title_now_given(form, obj):
            obj.needs_curation = False
            obj.curation_reason = ""
            self.message_user(
                request, "The paper has a title now: it left the curation queue.", messages.INFO
            )
        super().save_model(request, obj, form, change)

    @staticmethod
    def _title_now_given(form, obj: Paper) -> bool:
        """An untitled paper got its title, and the queue flag was only about that."""
        return (
            "title" in form.changed_data
            and not form.initial.get("title")
            and bool(obj.title)
            and obj.needs_curation
            # The curator set the flag or reason in this very form: respect it.
            and not {"needs_curation", "curation_reason"} & set(form.changed_data)
            and is_missing_title_reason(obj.curation_reason)
        )

    def save_formset(self, request, form, formset, change: bool) -> None:
        if formset.model is Authorship:
            formset.save(commit=False)
            services.save_authorships(
                paper=form.instance,
                added=formset.new_objects,
                changed=[row for row, _ in formset.changed_objects],
                deleted=formset.deleted_objects,
            )
        elif formset.model is PaperTag:
            self._save_paper_tags(request, form.instance, formset)
        else:
            super().save_formset(request, form, formset, change)

    @staticmethod
    def _save_paper_tags(request, paper: Paper, formset) -> None:
        formset.save(commit=False)
        changed = [row for row, _ in formset.changed_objects]
        # A changed row is a new tagging by this curator; delete first so that swapping two
        # tags between rows never meets the (paper, tag) constraint halfway.
        gone = [row.pk for row in [*formset.deleted_objects, *changed]]
        PaperTag.objects.filter(paper=paper, pk__in=gone).delete()
        fresh = []
        for row in [*changed, *formset.new_objects]:
            row.pk = None
            row.paper = paper
            row.added_by = request.user
            fresh.append(row)
        PaperTag.objects.bulk_create(fresh)
        if fresh:  # bulk_create sends no signal (the deletions above recorded themselves)
            SearchChange.objects.record([paper.pk])

    def save_related(self, request, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        edited = {name for name in form.changed_data if name in TRACKED_FIELDS}
        for formset in formsets:
            if formset.model is Authorship and formset.has_changed():
                edited.add(AUTHORS_EDIT)
            elif formset.model is PaperTag and formset.has_changed():
                edited.add(TAGS_EDIT)
        paper = form.instance
        if AUTHORS_EDIT in edited:
            # services.save_authorships stored the new list; keep this instance in step.
            paper.refresh_author_names(save=False)
        self._record_edits(paper, edited)

    @staticmethod
    def _record_edits(paper: Paper, edited: set[str]) -> None:
        merged = sorted(set(paper.curator_edited_fields) | edited)
        if merged != paper.curator_edited_fields:
            paper.curator_edited_fields = merged
            Paper.objects.filter(pk=paper.pk).update(curator_edited_fields=merged)


class KeptObjectField(forms.ModelChoiceField):
    """A merge's choice of the object to keep: a radio button for each selected object,
    labelled by `describe`."""

    def __init__(self, *, label: str, describe: Callable[[Any], str]) -> None:
        super().__init__(queryset=None, widget=forms.RadioSelect, label=label, empty_label=None)
        self.describe = describe

    def label_from_instance(self, obj) -> str:
        return self.describe(obj)


class MergeForm(forms.Form):
    """The confirmation form of a merge action: which of the `selected` objects to keep."""

    target: KeptObjectField

    def __init__(self, *args, selected: QuerySet, **kwargs):
        super().__init__(*args, **kwargs)
        target = self.fields["target"]
        assert isinstance(target, KeptObjectField)
        target.queryset = selected


class MergePapersForm(MergeForm):
    target = KeptObjectField(
        label="Keep this paper",
        describe=lambda paper: (
            f"#{paper.pk} {paper.display_title} ({paper.forum_id or 'no forum id'})"
        ),
    )


def _with_related_counts(papers: list[Paper]) -> list[Paper]:
    """Attach to each paper the rows of other models that a merge would move, counted per
    model (comments, paper tags...) in one GROUP BY per relation. Rows that can be private
    (notes, reading-list items) are not counted: "2 notes" on a paper would tell the curator
    what members keep to themselves. The page says they move, by kind only."""
    ids = [paper.pk for paper in papers]
    # (plural name to sort by, count, the name as the count needs it: "1 note", "2 notes")
    counts: dict[int, list[tuple[str, int, str]]] = {pk: [] for pk in ids}
    for relation in services.relations_to_paper():
        if relation.related_model is Authorship:  # shown as the author list
            continue
        if services.can_be_private(relation.related_model):
            continue
        fk = relation.field.name
        rows = (
            relation.related_model._default_manager.filter(**{f"{fk}__in": ids})
            .order_by()
            .values_list(fk)
            .annotate(n=Count("*"))
        )
        meta = relation.related_model._meta
        for paper_id, n in rows:
            counts[paper_id].append((str(meta.verbose_name_plural), n, model_ngettext(meta, n)))
    for paper in papers:
        paper.related_counts = [(n, label) for _, n, label in sorted(counts[paper.pk])]
    return papers


def _tag_names(paper: Paper, kind: str) -> str:
    return ", ".join(row.tag.name for row in paper.paper_tags.all() if row.tag.kind == kind)


def _papers_by_author_name(name: str) -> QuerySet[Authorship, int]:
    """The ids of papers with an author named like `name` (AuthorQuerySet.named_like)."""
    authors = Author.objects.named_like(name)
    return Authorship.objects.filter(author__in=authors).values_list("paper_id", flat=True)


def _search_title_or_forum(queryset: QuerySet[Paper], search_term: str) -> QuerySet[Paper]:
    for word in search_term.split():
        queryset = queryset.filter(Q(title__icontains=word) | Q(forum_id=word))
    return queryset


# --- Author -----------------------------------------------------------------------------


class AuthorForm(forms.ModelForm):
    class Meta:
        model = Author
        fields = ["name", "openreview_id"]

    def clean_openreview_id(self) -> str | None:
        # Blank is unknown: null, so that any number of authors may have none.
        return (self.cleaned_data["openreview_id"] or "").strip() or None

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        name, profile = cleaned.get("name"), cleaned.get("openreview_id")
        if name is None:
            return cleaned
        same_name = Author.objects.filter(normalized_name=normalize_author_name(name)).exclude(
            pk=self.instance.pk
        )
        if profile:  # two people of one name are told apart by their profiles
            same_name = same_name.filter(openreview_id=None)
        clash = same_name.first()
        if clash is not None:
            self.add_error(
                "name",
                f"“{clash.name}” is the same name once normalised; merge the two authors "
                "instead, or give each their OpenReview profile id if they are two people.",
            )
        return cleaned


class MergeAuthorsForm(MergeForm):
    target = KeptObjectField(
        label="Keep this author",
        describe=lambda author: (
            ngettext(
                "%(name)s (%(count)d paper)", "%(name)s (%(count)d papers)", author.paper_count
            )
            % {"name": author.name, "count": author.paper_count}
        ),
    )


@admin.register(Author)
class AuthorAdmin(MergingAdmin):
    form = AuthorForm
    list_display = ["name", "paper_count", "openreview_profile", "normalized_name", "created_at"]
    search_fields = ["name", "normalized_name", "openreview_id"]
    readonly_fields = ["normalized_name", "created_at"]
    ordering = ["name", "pk"]
    list_per_page = 100
    show_full_result_count = False
    actions = ["merge_authors"]

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(paper_count=related_count(Authorship, "author"))
        )

    @admin.display(description="papers", ordering="paper_count")
    def paper_count(self, author: WithAnnotations[Author, PaperCount]) -> int:
        return author.paper_count

    @admin.display(description="OpenReview profile", ordering="openreview_id")
    def openreview_profile(self, author: Author) -> str:
        if not author.openreview_id:
            return "–"
        return format_html('<a href="{}">{}</a>', author.openreview_url, author.openreview_id)

    def get_search_results(self, request, queryset, search_term):
        search_term = search_term[:MAX_ADMIN_SEARCH_CHARS]
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        # "Christopher D. Manning" must find "Christopher D Manning" (in this list and in the
        # paper form's author picker): compare the whole term the way names are keyed.
        return found | queryset.named_like(search_term), may_have_duplicates

    def save_model(self, request, obj: Author, form, change: bool) -> None:
        if change and "name" in form.changed_data:
            services.rename_author(author=obj, name=form.cleaned_data["name"])
        else:
            super().save_model(request, obj, form, change)

    @admin.action(description="Merge selected authors into one", permissions=["merge"])
    def merge_authors(
        self, request: HttpRequest, queryset: QuerySet[WithAnnotations[Author, PaperCount]]
    ) -> HttpResponse | None:
        # The default choice is the first: most papers, then, on a tie, the longest name,
        # since variants are mostly abbreviations ("Y. Bengio" of "Yoshua Bengio") and the
        # alphabet would pick the initials.
        authors = queryset.order_by("-paper_count", Length("name").desc(), "name", "pk")
        # The bound: "select all" across pages would otherwise fold a catalogue into one name.
        if _merge_size_refused(self, request, authors.count(), MAX_AUTHORS_MERGED):
            return None
        profiles = services.profiles_of(authors.only("openreview_id"))
        if len(profiles) > 1:
            self.message_user(
                request,
                f"Not merged: these authors have different OpenReview profiles "
                f"({', '.join(profiles)}), so they are different people.",
                messages.WARNING,
            )
            return None
        form, done = _confirmed_merge(
            self, request, MergeAuthorsForm, authors, services.merge_authors
        )
        if done:
            return None
        shown = _with_sample_titles(list(authors))
        return _merge_page(self, request, form, shown, authors=shown)


def _confirmed_merge(
    model_admin, request: HttpRequest, form_class: type[MergeForm], selected: QuerySet, merge
) -> tuple[MergeForm, bool]:
    """The merge action's form over `selected`, the first preselected, and whether the merge
    was done: on a valid confirmation, `merge(target=..., others=...)` (a services function
    whose result has a summary) is done, logged on the kept object and reported."""
    if "confirm" not in request.POST:
        return form_class(selected=selected, initial={"target": selected.first()}), False
    form = form_class(request.POST, selected=selected)
    if not form.is_valid():
        return form, False
    target = form.cleaned_data["target"]
    result = merge(target=target, others=[obj for obj in selected if obj.pk != target.pk])
    model_admin.log_change(request, target, result.summary())
    model_admin.message_user(request, result.summary(), messages.SUCCESS)
    return form, True


def _merge_size_refused(model_admin, request: HttpRequest, selected: int, maximum: int) -> bool:
    """Whether a merge action refuses this many selected objects (fewer than two, more than
    `maximum`), telling the curator why."""
    plural = model_admin.opts.verbose_name_plural
    if selected < 2:
        model_admin.message_user(
            request, f"Select at least two {plural} to merge.", messages.WARNING
        )
        return True
    if selected > maximum:
        model_admin.message_user(
            request,
            f"Merge at most {maximum} {plural} at a time ({selected} selected).",
            messages.WARNING,
        )
        return True
    return False


def _merge_page(model_admin, request: HttpRequest, form, selected: list, **extra) -> HttpResponse:
    """The confirmation page of a merge action (admin/papers/merge_base.html and the model's
    merge.html): `form` chooses the object to keep among `selected`, posted back to the
    action named merge_<model>s."""
    opts = model_admin.opts
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Merge {opts.verbose_name_plural}",
        "opts": opts,
        "form": form,
        "selected_ids": [obj.pk for obj in selected],
        "action": f"merge_{opts.model_name}s",
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": model_admin.media,
        **extra,
    }
    return render(request, f"admin/papers/{opts.model_name}/merge.html", context)


def _with_sample_titles(authors: list[Author], per_author: int = 5) -> list[Author]:
    """Attach a few paper titles to each author, so the curator sees who is who."""
    titles: dict[int, list[str]] = {author.pk: [] for author in authors}
    rows = (
        Authorship.objects.filter(author__in=authors)
        .order_by("author_id", "paper__title", "paper_id")
        .values_list("author_id", "paper__title")
    )
    for author_id, title in rows:
        if len(titles[author_id]) < per_author:
            titles[author_id].append(title or UNTITLED_PLACEHOLDER)
    for author in authors:
        author.sample_titles = titles[author.pk]
    return authors


# --- Tag --------------------------------------------------------------------------------


class TagForm(forms.ModelForm):
    class Meta:
        model = Tag
        fields = ["name", "kind"]

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        name, kind = cleaned.get("name"), cleaned.get("kind")
        if name and kind:
            others = Tag.objects.filter(kind=kind).exclude(pk=self.instance.pk)
            clash = (
                others.filter(key=tag_key(name)).first()
                or others.filter(slug=tag_slug(name)).first()
            )
            if clash is not None:
                raise forms.ValidationError(
                    f"The {clash.get_kind_display().lower()} “{clash.name}” already exists."
                )
            if (
                self.instance.pk is not None
                and kind != self.instance.kind
                and self.instance.aliases.exists()
            ):
                # Its merged spellings are spellings of a tag of this kind (imports look them
                # up by kind): moved to another kind, they would bring the old tags back.
                raise forms.ValidationError(
                    "Other tags were merged into this one: it keeps its kind."
                )
            alias = TagAlias.objects.filter(kind=kind, key=tag_key(name)).first()
            if alias is not None and alias.tag_id != self.instance.pk:
                raise forms.ValidationError(
                    f"“{alias.name}” was merged into “{alias.tag.name}”: imports that spell "
                    "it so tag papers with that."
                )
        return cleaned


class MergeTagsForm(MergeForm):
    target = KeptObjectField(
        label="Keep this tag",
        describe=lambda tag: (
            ngettext("%(name)s (%(count)d paper)", "%(name)s (%(count)d papers)", tag.paper_count)
            % {"name": tag.name, "count": tag.paper_count}
        ),
    )


class TagAliasInline(admin.TabularInline):
    """The spellings merged into this tag (services.merge_tags): shown, never edited."""

    model = TagAlias
    fk_name = "tag"
    fields = ["name", "created_at"]
    readonly_fields = ["name", "created_at"]
    extra = 0
    can_delete = False
    verbose_name = "merged spelling"
    verbose_name_plural = "merged spellings (imports that spell a tag so give it this tag)"

    def has_view_permission(self, request, obj=None) -> bool:
        # No admin page shows TagAlias, so nobody holds its permissions: follow the tag's.
        return self.admin_site._registry[Tag].has_view_permission(request, obj)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Tag)
class TagAdmin(MergingAdmin):
    form = TagForm
    list_display = ["name", "kind", "paper_count", "slug", "created_at"]
    list_filter = ["kind", SpellingVariantsFilter]
    # By key, case aside: spellings of one tag ("Language model", "language models") side by side.
    ordering = ["kind", "key", "pk"]
    search_fields = ["name", "key"]
    readonly_fields = ["slug", "created_at"]
    list_per_page = 100
    show_full_result_count = False
    actions = ["merge_tags", "merge_spelling_variants"]

    def get_inlines(self, request, obj):
        # Only a tag that others were merged into has spellings to list.
        return [TagAliasInline] if obj is not None and obj.aliases.exists() else []

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(paper_count=related_count(PaperTag, "tag"))

    @admin.display(description="papers", ordering="paper_count")
    def paper_count(self, tag: WithAnnotations[Tag, PaperCount]) -> int:
        return tag.paper_count

    @admin.action(description="Merge selected tags into one", permissions=["merge"])
    def merge_tags(
        self, request: HttpRequest, queryset: QuerySet[WithAnnotations[Tag, PaperCount]]
    ) -> HttpResponse | None:
        # The default choice is the first: most papers, then the shorter name.
        tags = queryset.order_by("-paper_count", Length("name"), "name", "pk")
        if _merge_size_refused(self, request, tags.count(), MAX_TAGS_MERGED):
            return None
        kinds = set(tags.values_list("kind", flat=True))
        if len(kinds) > 1 or TagKind.DECISION in kinds:
            # A decision is set from the paper's reviews by name; other kinds mean other things.
            self.message_user(
                request,
                "Merge tags of one kind at a time (decisions come from reviews: none).",
                messages.WARNING,
            )
            return None
        form, done = _confirmed_merge(self, request, MergeTagsForm, tags, services.merge_tags)
        if done:
            return None
        return _merge_page(self, request, form, list(tags), tags=list(tags))

    @admin.action(
        description="Merge each group of spelling variants among the selected tags",
        permissions=["merge"],
    )
    def merge_spelling_variants(
        self, request: HttpRequest, queryset: QuerySet[WithAnnotations[Tag, PaperCount]]
    ) -> HttpResponse | None:
        # Each group keeps its tag with most papers, then the shorter name ("LLM" of "LLMs").
        if queryset.count() > MAX_TAGS_CHECKED_FOR_VARIANTS:
            self.message_user(
                request,
                f"Select at most {MAX_TAGS_CHECKED_FOR_VARIANTS:,} tags: filter the list by "
                "“spelling variants” first.",
                messages.WARNING,
            )
            return None
        by_pk = {tag.pk: tag for tag in queryset}
        groups = [
            sorted((by_pk[pk] for pk in group), key=lambda t: (-t.paper_count, len(t.name), t.pk))
            for group in spelling_variants(by_pk)
        ]
        if not groups:
            self.message_user(
                request, "No two of the selected tags are spellings of one.", messages.WARNING
            )
            return None
        if "confirm" not in request.POST:
            context = {
                **self.admin_site.each_context(request),
                "title": "Merge spelling variants",
                "opts": self.opts,
                "groups": groups,
                "submit_label": ngettext("Merge %(n)d group", "Merge %(n)d groups", len(groups))
                % {"n": len(groups)},
                "selected_ids": list(by_pk),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
            return render(request, "admin/papers/tag/merge_variants.html", context)
        with transaction.atomic():
            for kept, *others in groups:
                result = services.merge_tags(target=kept, others=others)
                self.log_change(request, kept, result.summary())
        merged = sum(len(group) - 1 for group in groups)
        self.message_user(
            request,
            ngettext(
                "Merged %(merged)d tag into %(groups)d kept tag.",
                "Merged %(merged)d tags into %(groups)d kept tags.",
                merged,
            )
            % {"merged": merged, "groups": len(groups)},
            messages.SUCCESS,
        )
        return None


# --- Import history ---------------------------------------------------------------------


def imported_papers_url(run: ImportRun, by: type[ImportRunFilter]) -> str:
    return f"{reverse('admin:papers_paper_changelist')}?{by.parameter_name}={run.pk}"


class ReadOnlyAdmin(RefusesLookupsIntoPrivateData, BoundedSearch, GuardsNumbers, admin.ModelAdmin):
    """What the site records by itself: listed and shown, never added, edited or deleted."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ImportRun)
class ImportRunAdmin(ReadOnlyAdmin):
    # The history is what the imports did. Nobody adds or edits it by hand; nor deletes it:
    # deleting a run would not undo its import, only cut its papers' links to it (and what
    # later features count as new since a visit).

    list_display = [
        "__str__",
        "started_at",
        "who",
        "short_files",
        "created",
        "updated",
        "unchanged",
        "conflicts",
        "duration_shown",
        "paper_links",
    ]
    list_select_related = ["user"]
    date_hierarchy = "started_at"
    search_fields = ["invoked_by", "user__username"]
    fields = [
        "started_at",
        "finished_at",
        "duration_shown",
        "invoked_by",
        "user",
        "file_table",
        ("created", "updated", "unchanged", "conflicts"),
        "paper_links",
    ]
    readonly_fields = ["duration_shown", "file_table", "paper_links"]

    @admin.display(description="who")
    def who(self, run: ImportRun) -> str:
        who = [run.user.get_username()] if run.user else []
        if run.invoked_by:
            who.append(run.invoked_by)
        return " via ".join(who) or "-"

    @admin.display(description="files")
    def short_files(self, run: ImportRun) -> str:
        paths = [entry["path"] for entry in run.files]
        if not paths:
            return "-"
        first = PurePath(paths[0]).name
        return first if len(paths) == 1 else f"{first} and {len(paths) - 1} more"

    @admin.display(description="duration")
    def duration_shown(self, run: ImportRun) -> str:
        duration = run.duration
        return "-" if duration is None else f"{duration.total_seconds():.1f} s"

    @admin.display(description="files and their counts")
    def file_table(self, run: ImportRun) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (e["path"], e["created"], e["updated"], e["unchanged"], e["conflicts"])
                for e in run.files
            ),
        )
        table = format_html(
            "<table><thead><tr><th>file</th><th>created</th><th>updated</th>"
            "<th>unchanged</th><th>conflicts</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )
        # A fetch's notes or entries it left out (papers.importing.report.Counts.warnings).
        warnings = [(e["path"], text) for e in run.files for text in e.get("warnings", [])]
        if not warnings:
            return table
        return format_html(
            "{}<p>Warnings (left out; the rest was imported):</p><ul>{}</ul>",
            table,
            format_html_join("", "<li>{}: {}</li>", warnings),
        )

    @admin.display(description="papers")
    def paper_links(self, run: ImportRun) -> str:
        # "Changed" lists the papers this run changed last: a later import that changes one
        # again takes it over.
        return format_html(
            '<a href="{}">created</a> · <a href="{}">last changed</a>',
            imported_papers_url(run, CreatedByImportFilter),
            imported_papers_url(run, ChangedByImportFilter),
        )


# --- Import conflicts ---------------------------------------------------------------------


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


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    """Reviews as the importer stored them: read only, since each paper's summary (decision,
    mean rating) is derived from them and a re-import would bring an edit back."""

    list_display = ["note_id", "paper", "kind", "rating", "confidence", "decision", "created"]
    list_filter = ["kind"]
    list_select_related = ["paper"]
    search_fields = ["=note_id", "=paper__forum_id", "decision"]
    list_per_page = 50


# Registered in their own module; imported last, as it builds on GuardedAdmin above.
from papers import admin_feeds  # noqa: E402, F401
