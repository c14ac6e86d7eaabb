"""The paper admin: a changelist that scales to a million papers, the curation queue, the
authorship and tag inlines, edits recorded so re-imports keep them, and merging papers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import model_ngettext
from django.contrib.admin.views.main import ChangeList
from django.db import models
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import ngettext

from papers import services
from papers.admin.common import (
    AUTHORS_EDIT,
    FIRST_AUTHORS_SHOWN,
    FOLDED_TITLE_MATCHES,
    MAX_AUTHOR_POSITION,
    MAX_PAPERS_MERGED,
    TAGS_EDIT,
    TRACKED_FIELDS,
    clipped,
    is_missing_title_reason,
)
from papers.admin.duplicates import find_duplicates
from papers.admin.guards import MAX_ADMIN_SEARCH_CHARS, MergingAdmin
from papers.admin.list_filters import (
    ChangedByImportFilter,
    CreatedByImportFilter,
    HasPdfFilter,
    OpenConflictsFilter,
    ReviewedFilter,
    TrackFilter,
    VenueFilter,
)
from papers.admin.merging import (
    KeptObjectField,
    MergeForm,
    confirmed_merge,
    merge_page,
    merge_size_refused,
)
from papers.admin.pickers import PreloadedPickersAdmin, PreloadedPickersForm
from papers.admin.review import ReviewInline
from papers.models import Author, Authorship, Paper, PaperTag, SearchChange, Tag, TagKind
from papers.querysets import PaperQuerySet
from papers.suggest import identifier_lookups, papers_worded_like
from papers.text import (
    forum_id_from_url,
    is_arxiv_id,
    is_doi,
    is_forum_id,
    normalize_arxiv_id,
    normalize_doi,
)
from papers.word_diff import short_diff

if TYPE_CHECKING:
    pass


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
    # What a curator scans at 1280 px, status first, each on one line (long text cut by CSS,
    # static/css/admin_curation.css); the OpenReview link is on the paper's page.
    list_display = [
        "curation_status",
        "title_or_placeholder",
        "first_authors",
        "venue_track",
        "has_pdf",
        "updated",
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
    inlines = [AuthorshipInline, PaperTagInline, ReviewInline]
    actions = [
        "mark_reviewed",
        "flag_for_curation",
        "forget_curator_edits",
        find_duplicates,
        "merge_papers",
    ]
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
        (None, {"fields": ["title", "abstract", "year", "publication_type"]}),
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

    def get_inlines(self, request, obj):
        # A paper being typed in has no reviews: their inline is on a paper's change page only.
        return self.inlines if obj is not None else [AuthorshipInline, PaperTagInline]

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

    @admin.display(description="status", ordering="needs_curation")
    def curation_status(self, paper: Paper) -> str:
        if paper.needs_curation:
            label = "needs curation"
            if paper.curation_reason:
                label += f": {paper.curation_reason}"
            return clipped(label)
        return "reviewed" if paper.reviewed_at is not None else "-"

    @admin.display(description="title", ordering="title")
    def title_or_placeholder(self, paper: Paper) -> str:
        # The whole title: cut on screen by CSS, whole in the link's accessible name.
        if paper.title:
            return clipped(paper.title)
        return format_html("<em>{}</em>", paper.display_title)

    @admin.display(description="authors", ordering="author_names")
    def first_authors(self, paper: Paper) -> str:
        names = [row.author.name for row in paper.authorships.all()]
        shown = ", ".join(names[:FIRST_AUTHORS_SHOWN])
        if len(names) > FIRST_AUTHORS_SHOWN:
            shown += f" et al. ({len(names)})"
        return clipped(shown)

    @admin.display(description="venue · track")
    def venue_track(self, paper: Paper) -> str:
        names = (_tag_names(paper, kind) for kind in (TagKind.VENUE, TagKind.TRACK))
        return clipped(" · ".join(name for name in names if name))

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, paper: Paper) -> str:
        # The day fits the column; the time is in its title.
        moment = timezone.localtime(paper.updated_at)
        return format_html(
            '<span title="{}">{}</span>', moment.strftime("%Y-%m-%d %H:%M"), moment.date()
        )

    @admin.display(description="PDF", boolean=True)
    def has_pdf(self, paper: Paper) -> bool:
        return bool(paper.pdf_url)

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
                short_diff(c.previous, c.incoming),
            )
            for c in conflicts
        ]
        if not rows:
            return "-"
        return format_html_join(
            "", '<p><a href="{}">{}: {}</a> ({}): <span class="word-diff">{}</span></p>', rows
        )

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
        if merge_size_refused(self, request, papers.count(), MAX_PAPERS_MERGED):
            return None
        try:
            form, done = confirmed_merge(
                self, request, MergePapersForm, papers, services.merge_papers
            )
        except services.MergeRefused as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
            return None
        if done:
            return None
        # Every field, the abstract included (the list defers it): the page compares them.
        everything = papers.defer(None).prefetch_related("authorships__author")
        shown = _with_related_counts(list(everything))
        private = services.private_annotation_kinds()
        return merge_page(self, request, form, shown, papers=shown, private_kinds=private)

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
