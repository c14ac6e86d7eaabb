"""Finding the likely duplicates of chosen papers from the admin: an action of the paper list,
and a button on each paper's page that runs it for that paper (papers.duplicates)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from papers.duplicates import flag_likely_duplicates, likely_duplicates
from papers.models import Paper


@admin.action(description="Find duplicates of the selected papers", permissions=["change"])
def find_duplicates(model_admin, request: HttpRequest, queryset: QuerySet[Paper]) -> None:
    """Flag the likely duplicates of the selected papers, and list each pair with a link to
    the two papers, where "Merge selected papers into one" joins them."""
    chosen = set(queryset.values_list("pk", flat=True))
    found = likely_duplicates(among=chosen)
    if not found:
        model_admin.message_user(
            request, "No likely duplicates of the selected papers.", messages.INFO
        )
        return
    flagged = flag_likely_duplicates(found)
    titles = dict(Paper.objects.filter(pk__in={*found, *found.values()}).values_list("pk", "title"))
    changelist = reverse("admin:papers_paper_changelist")
    # Each pair once, the chosen paper first.
    pairs = sorted({(pk, like) for pk, like in found.items() if pk in chosen})
    rows = [
        (
            f"{changelist}?id__in={pk},{like}",
            pk,
            titles[pk] or "untitled",
            like,
            titles[like] or "untitled",
        )
        for pk, like in pairs
    ]
    listed = format_html_join("", '<li><a href="{}">#{} “{}” and #{} “{}”</a></li>', rows)
    model_admin.message_user(
        request,
        format_html(
            "{} likely duplicate pair(s) found, {} paper(s) put in the curation queue "
            "(open a pair, select both, merge):<ul>{}</ul>",
            len(rows),
            flagged,
            listed,
        ),
        messages.SUCCESS,
    )
