"""Adding a paper by its link: the POST that asks for it (papers.link_tasks) and the page that
follows the fetch until the paper is added.

The page polls itself with htmx every second while the fetch is pending and, once it is done,
sends the browser on (HX-Redirect) to the paper or to the page the member asked from; without
JavaScript, reloading it shows the same, and a reload once it is done goes on by a redirect.
Only the member who asked sees it (another member gets a 404). Its GET writes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from annotations import throttle
from papers.link_fetches import progress
from papers.link_tasks import ask_for_link
from papers.models import LinkFetch
from papers.sources.single import LookupFailed, TooManyLookups

# How often the page asks again while the paper is being fetched (htmx's "every").
POLL_SECONDS = 1


def hx_redirect(url: str) -> HttpResponse:
    """htmx's answer that sends the whole browser to `url` (a redirect it would follow and swap
    in)."""
    response = HttpResponse()
    response["HX-Redirect"] = url
    return response


def see_other(request: HttpRequest, url: str) -> HttpResponse:
    """On to `url` after a POST."""
    if getattr(request, "htmx", False):
        return hx_redirect(url)
    response = redirect(url)
    response.status_code = 303
    return response


def follow_fetch(request: HttpRequest, fetch: LinkFetch) -> HttpResponse:
    """The answer to a POST that queued `fetch`: its page."""
    return see_other(request, fetch.get_absolute_url())


@require_POST
@login_required
def add_by_link(request: HttpRequest) -> HttpResponse:
    """Add the paper a link names (the list page's "Add from arXiv" button): open it when the
    catalogue has it, else queue its fetch and follow it on its page."""
    link = request.POST.get("link", "")
    try:
        asked = ask_for_link(link, user=request.user, invoked_by=f"link ({request.user})")  # type: ignore[arg-type]
    except TooManyLookups as refused:
        return throttle.too_many_requests(request, refused.message, retry_after=refused.retry_after)
    except LookupFailed as error:
        messages.warning(request, error.message)
        asked = None
    else:
        if asked is None:
            messages.warning(request, "That is no arXiv, OpenReview or DOI link or id.")
    if asked is None:
        return see_other(request, f"{reverse('papers:list')}?{urlencode({'q': link.strip()})}")
    if isinstance(asked, LinkFetch):
        return follow_fetch(request, asked)
    return see_other(request, asked.get_absolute_url())


@require_GET
@login_required
def link_fetch(request: HttpRequest, pk: int) -> HttpResponse:
    fetch = get_object_or_404(
        LinkFetch.objects.select_related("paper", "leader__paper"), pk=pk, requested_by=request.user
    )
    shown = progress(fetch)
    htmx = getattr(request, "htmx", False)
    if shown.state == "done":
        return hx_redirect(shown.next_url) if htmx else redirect(shown.next_url)
    return render(
        request,
        "papers/_link_fetch.html" if htmx else "papers/link_fetch.html",
        {"progress": shown, "poll_seconds": POLL_SECONDS},
    )
