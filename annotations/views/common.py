"""Response helpers shared by the annotation views: redirect-after-POST or an htmx fragment."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from annotations.panel import SECTIONS, section_context
from papers.models import Paper
from papers.navigation import results_context
from papers.views import HtmxHttpRequest


def next_url(request: HttpRequest, default: str) -> str:
    """The form's `next` target when it points back into this site, else `default`."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    # A path or a full URL: a bare word ("x") would be taken for a URL name by redirect().
    shaped = candidate.startswith("/") or candidate.lower().startswith(("http://", "https://"))
    if shaped and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


def finish(
    request: HtmxHttpRequest,
    message: str,
    *,
    redirect_to: str,
    fragment: tuple[str, dict[str, Any]] | None = None,
    level: int = messages.SUCCESS,
) -> HttpResponse:
    """htmx gets the refreshed fragment with the message in it; a plain form POST gets
    the message stored for the next page and a redirect (so a reload never re-posts)."""
    if fragment is not None and request.htmx:
        template, context = fragment
        flash_level = "error" if level >= messages.WARNING else "success"
        return render(request, template, {**context, "flash": message, "flash_level": flash_level})
    messages.add_message(request, level, message)
    return redirect(_with_results_context(request, redirect_to))


def _with_results_context(request: HttpRequest, url: str) -> str:
    """`url` with the results-navigation parameters a paper-page form posted (see
    annotation_tags.results_context_fields), so the member lands back on the paper page with
    "Back to results" and previous/next; `url` as it is when the form posted none."""
    params = results_context(request.POST)
    if not params:
        return url
    # `url` may be a URL name ("annotations:notifications"), which redirect() resolves; with
    # a query string appended it would no longer be one.
    url = resolve_url(url)
    address, hash_mark, fragment = url.partition("#")
    separator = "&" if "?" in address else "?"
    return f"{address}{separator}{urlencode(params)}{hash_mark}{fragment}"


def paper_section(request: HttpRequest, paper: Paper, section: str, **overrides: Any):
    """A (template, context) pair for one section of the paper page's annotation panel."""
    return SECTIONS[section], section_context(request, paper, section, **overrides)


def paper_anchor(paper: Paper, section: str) -> str:
    return f"{paper.get_absolute_url()}#paper-{section}"


def unconfirmed_delete(
    request: HtmxHttpRequest, *, question: str, cancel_url: str
) -> HttpResponse | None:
    """A page asking `question` before a delete that came without the page's confirmation, or
    None when it may go ahead.

    The delete buttons ask first through static/js/annotations.js (which then adds
    `confirmed`) or htmx's hx-confirm; without JavaScript they post straight away, and one slip
    would lose a note, a list or a saved search for good. The page posts the same fields
    again, with `confirmed`.
    """
    if request.htmx or request.POST.get("confirmed") == "yes":
        return None
    carried = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", "confirmed")
        for value in values
    ]
    context = {"question": question, "carried": carried, "cancel_url": cancel_url}
    return render(request, "annotations/confirm_delete.html", context)


def form_errors_text(form) -> str:
    return " ".join(str(error) for errors in form.errors.values() for error in errors)
