"""The admin index's curation queue: how many papers wait, how many of them are likely
duplicates, how many import conflicts are open, and where each list is."""

from __future__ import annotations

from django import template
from django.contrib import admin
from django.urls import reverse

from papers.admin.common import DUPLICATES_QUERY, curation_queue_url
from papers.duplicates import DUPLICATE_REASON_PREFIX
from papers.models import ImportConflict, Paper

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
    }
