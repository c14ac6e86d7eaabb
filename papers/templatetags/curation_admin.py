"""The admin index's curation queue: how many papers wait, how many of them are likely
duplicates, how many import conflicts are open, and where each list is; and, for who may merge
tags, the spellings of one tag to merge (papers.tags.variants)."""

from __future__ import annotations

from typing import cast

from django import template
from django.contrib import admin
from django.urls import reverse

from papers.admin.common import DUPLICATES_QUERY, curation_queue_url
from papers.admin.guards import MergingAdmin
from papers.duplicates import DUPLICATE_REASON_PREFIX
from papers.models import ImportConflict, Paper, Tag
from papers.tags.variants import merge_suggestions

register = template.Library()


@register.inclusion_tag("admin/papers/_curation_queue.html", takes_context=True)
def curation_queue(context) -> dict:
    request = context["request"]
    # Ask the paper admin, not for "papers.view_paper" alone: the admin lets a curator who
    # may change papers see them without the view permission, and such a curator is exactly
    # who works the queue.
    if not admin.site.get_model_admin(Paper).has_view_permission(request):
        return {"show": False}
    queue = Paper.objects.needing_curation()
    papers = reverse("admin:papers_paper_changelist")
    conflicts = admin.site.get_model_admin(ImportConflict)
    return {
        "show": True,
        "waiting": queue.count(),
        "url": curation_queue_url(),
        "duplicates": queue.filter(curation_reason__startswith=DUPLICATE_REASON_PREFIX).count(),
        "duplicates_url": f"{papers}?{DUPLICATES_QUERY}",
        # Conflicts only for who may see them (an open one names its paper's values).
        "show_conflicts": conflicts.has_view_permission(request),
        "conflicts": ImportConflict.objects.filter(resolved_at__isnull=True).count(),
        "conflicts_url": reverse("admin:papers_importconflict_changelist"),
        **_tag_variants(request),
    }


def _tag_variants(request) -> dict:
    # Offered only to who may merge tags: the buttons would be refused to anyone else.
    tags = cast(MergingAdmin, admin.site.get_model_admin(Tag))
    if not tags.has_merge_permission(request):
        return {"show_variants": False}
    suggestions = merge_suggestions()
    return {
        "show_variants": True,
        "variants": suggestions.shown,
        "variants_total": suggestions.total,
        "variants_url": reverse("admin:papers_tag_changelist") + "?variants=yes",
    }
