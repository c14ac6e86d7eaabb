"""The admin index's curation-queue link: how many papers wait, and where they are."""

from __future__ import annotations

from django import template
from django.contrib import admin

from papers.admin.common import curation_queue_url
from papers.models import Paper

register = template.Library()


@register.inclusion_tag("admin/papers/_curation_queue.html", takes_context=True)
def curation_queue(context) -> dict:
    request = context["request"]
    # Ask the paper admin, not for "papers.view_paper" alone: the admin lets a curator who
    # may change papers see them without the view permission, and such a curator is exactly
    # who works the queue.
    if not admin.site.get_model_admin(Paper).has_view_permission(request):
        return {"show": False}
    return {
        "show": True,
        "waiting": Paper.objects.needing_curation().count(),
        "url": curation_queue_url(),
    }
