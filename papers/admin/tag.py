"""The tag admin: kinds, merged spellings (aliases), merging and spelling variants (the
curation queue's "merge" and "dismiss" buttons post to it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from papers.admin.common import (
    MAX_TAGS_CHECKED_FOR_VARIANTS,
    MAX_TAGS_MERGED,
    PaperCount,
    related_count,
)
from papers.admin.guards import MergingAdmin
from papers.admin.list_filters import SpellingVariantsFilter
from papers.admin.merging import (
    KeptObjectField,
    MergeForm,
    confirmed_merge,
    merge_page,
    merge_size_refused,
)
from papers.models import PaperTag, Tag, TagAlias, TagKind
from papers.numbers import parse_id
from papers.querysets import spelling_variants
from papers.tags import service as tag_service
from papers.tags import variants

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class TagForm(forms.ModelForm):
    class Meta:
        model = Tag
        fields = ["name", "kind"]

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        name, kind = cleaned.get("name"), cleaned.get("kind")
        if name and kind:
            clash = tag_service.tag_taking_place_of(kind, name, exclude_pk=self.instance.pk)
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
            alias = tag_service.alias_named(kind, name)
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
    """The spellings merged into this tag (papers.tags.service.merge_tags): shown, never edited."""

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

    def get_urls(self):
        def posted(view):
            return self.admin_site.admin_view(require_POST(view))

        return [
            path(
                "variants/merge/",
                posted(self.merge_variants_view),
                name="papers_tag_variants_merge",
            ),
            path(
                "variants/dismiss/",
                posted(self.dismiss_variants_view),
                name="papers_tag_variants_dismiss",
            ),
            *super().get_urls(),
        ]

    def merge_variants_view(self, request: HttpRequest) -> HttpResponse:
        """The curation queue's "Merge into …": the posted tags into the posted target."""
        if not self.has_merge_permission(request):
            raise PermissionDenied
        target_id = parse_id(request.POST.get("target"))
        others = _posted_ids(request, "tag")
        try:
            if target_id is None or not others:
                raise variants.VariantsRefused("Choose the spellings to merge.")
            result = variants.merge_variants(target_id=target_id, other_ids=others)
        except variants.VariantsRefused as refused:
            self.message_user(request, str(refused), messages.ERROR)
        else:
            self.log_change(request, result.target, result.summary())
            self.message_user(request, result.summary(), messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:index"))

    def dismiss_variants_view(self, request: HttpRequest) -> HttpResponse:
        """The curation queue's "Not the same": the posted spellings are not suggested again."""
        if not self.has_merge_permission(request):
            raise PermissionDenied
        user = request.user if isinstance(request.user, User) else None
        try:
            tags = variants.dismiss_variants(tag_ids=_posted_ids(request, "tag"), user=user)
        except variants.VariantsRefused as refused:
            self.message_user(request, str(refused), messages.ERROR)
        else:
            names = ", ".join(f"“{tag.name}”" for tag in tags)
            self.message_user(request, f"No longer suggested for merging: {names}.")
        return HttpResponseRedirect(reverse("admin:index"))

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
        if merge_size_refused(self, request, tags.count(), MAX_TAGS_MERGED):
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
        form, done = confirmed_merge(self, request, MergeTagsForm, tags, tag_service.merge_tags)
        if done:
            return None
        return merge_page(self, request, form, list(tags), tags=list(tags))

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
                result = tag_service.merge_tags(target=kept, others=others)
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


def _posted_ids(request: HttpRequest, name: str) -> list[int]:
    """The row ids posted as `name`, at most MAX_TAGS_MERGED; any that names none refuses all."""
    raw = request.POST.getlist(name)[: MAX_TAGS_MERGED + 1]
    ids = [parse_id(value) for value in raw]
    if len(raw) > MAX_TAGS_MERGED or None in ids:
        return []
    return [pk for pk in ids if pk is not None]
