"""The admin index's curation-queue link: how many papers wait, and where they are."""

from __future__ import annotations

from django import template

from papers.admin import curation_queue_url
from papers.models import Paper

register = template.Library()


@register.inclusion_tag("admin/papers/_curation_queue.html", takes_context=True)
def curation_queue(context) -> dict:
    request = context["request"]
    if not request.user.has_perm("papers.view_paper"):
        return {"show": False}
    return {
        "show": True,
        "waiting": Paper.objects.needing_curation().count(),
        "url": curation_queue_url(),
    }
