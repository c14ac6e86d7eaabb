"""The author admin: renaming everywhere, OpenReview profile ids, merging spellings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django.utils.translation import ngettext

from papers import services
from papers.admin.common import MAX_AUTHORS_MERGED, PaperCount, related_count
from papers.admin.guards import MAX_ADMIN_SEARCH_CHARS, MergingAdmin
from papers.admin.merging import (
    KeptObjectField,
    MergeForm,
    confirmed_merge,
    merge_page,
    merge_size_refused,
)
from papers.models import UNTITLED_PLACEHOLDER, Author, Authorship, MergedAuthor
from papers.text import normalize_author_name

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class AuthorForm(forms.ModelForm):
    class Meta:
        model = Author
        fields = ["name", "openreview_id", "orcid"]

    def clean_openreview_id(self) -> str | None:
        # Blank is unknown: null, so that any number of authors may have none.
        return (self.cleaned_data["openreview_id"] or "").strip() or None

    def clean_orcid(self) -> str | None:
        return (self.cleaned_data["orcid"] or "").strip() or None

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


class MergedAuthorInline(admin.TabularInline):
    """The authors merged into this one (papers.services.merge_authors): their old pages lead
    here. Shown, never edited."""

    model = MergedAuthor
    fk_name = "into"
    fields = ["name", "author_id", "merged_at"]
    readonly_fields = ["name", "author_id", "merged_at"]
    extra = 0
    can_delete = False
    verbose_name = "merged author"
    verbose_name_plural = "merged authors (their old pages, filters and saved searches lead here)"

    def has_view_permission(self, request, obj=None) -> bool:
        # No admin page shows MergedAuthor, so nobody holds its permissions: follow the author's.
        return self.admin_site._registry[Author].has_view_permission(request, obj)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


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

    def get_inlines(self, request, obj):
        # Only an author others were merged into has merged authors to list.
        return [MergedAuthorInline] if obj is not None and obj.merged_authors.exists() else []

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
        if merge_size_refused(self, request, authors.count(), MAX_AUTHORS_MERGED):
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
        form, done = confirmed_merge(
            self, request, MergeAuthorsForm, authors, services.merge_authors
        )
        if done:
            return None
        shown = _with_sample_titles(list(authors))
        return merge_page(self, request, form, shown, authors=shown)


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
