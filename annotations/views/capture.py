"""One-click capture from another site: the member's capture page (its list and bookmarklet),
the page the bookmarklet opens, the POST that adds, its confirmation and its undo.

The page the bookmarklet opens is a GET that writes nothing: it shows what the foreign page
names and a form (our session, our CSRF token) with the member's list chosen. Pressing "Add"
posts it; with the one-click bookmarklet, static/js/capture.js posts it at once, carrying the
key the bookmarklet holds in the URL's fragment, and the POST adds without the press only when
that key is the member's. Why this is CSRF-safe: docs/security.md ("One-click capture").
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotations import capture, services, throttle
from annotations.capture_forms import CaptureForm, CaptureTargetForm
from annotations.models import Capture, ReadingList
from papers.link_views import POLL_SECONDS, see_other
from papers.sources import single


def _own_capture(request: HttpRequest, pk: int) -> Capture:
    return get_object_or_404(
        Capture.objects.select_related("reading_list", "paper", "item", "link_fetch__leader"),
        pk=pk,
        member=request.user,
    )


def _capture_page(request: HttpRequest, form: CaptureForm, *, status: int = 200, **extra):
    """The capture page, for what `form` asks (its initial data on a GET, its data on a POST
    shown again)."""
    data = form.data if form.is_bound else form.initial
    link = str(data.get("link") or "")
    asked = extra.pop("asked", None) or capture.asked_in({"url": link})
    known = single.in_catalogue(asked.identifier) if asked.identifier else None
    reading_list = capture.target_list(request.user)
    context = {
        "asked": asked,
        "form": form,
        "known": known,
        "listed": bool(known and reading_list and reading_list.items.filter(paper=known).exists()),
        "matches": capture.papers_with_title(asked.title) if asked.title else [],
        "reading_list": reading_list,
        **extra,
    }
    return render(request, "annotations/capture.html", context, status=status)


@require_GET
@login_required
def capture_page(request: HttpRequest) -> HttpResponse:
    """What the bookmarklet opens: the paper the foreign page names, and the form that adds it."""
    asked = capture.asked_in(request.GET)
    initial = {"link": asked.link, "reading_list": capture.target_list(request.user)}
    form = CaptureForm(initial=initial, owner=request.user)
    return _capture_page(request, form, status=400 if asked.problem else 200, asked=asked)


@require_POST
@login_required
def capture_add(request: HttpRequest) -> HttpResponse:
    form = CaptureForm(request.POST, owner=request.user)
    if not form.is_valid():
        return _capture_page(request, form, status=400)
    # The member pressed "Add" (a form.submit() by script sends no button), or the one-click
    # bookmarklet's script posted with the member's key.
    pressed = "add" in request.POST
    if not pressed and not capture.key_matches(request.user, form.cleaned_data["key"]):
        refusal = "This bookmarklet's key is not (or no longer) yours: press Add to add the paper."
        return _capture_page(request, form, status=403, refusal=refusal)
    try:
        captured = capture.capture(
            member=request.user,
            reading_list=form.cleaned_data["reading_list"],
            link=form.cleaned_data["link"],
            paper=form.cleaned_data["paper"],
        )
    except single.TooManyLookups as refused:
        return throttle.too_many_requests(request, refused.message, retry_after=refused.retry_after)
    except single.LookupFailed as failed:
        return _capture_page(request, form, status=400, refusal=failed.message)
    except services.Refused as refused:
        return _capture_page(request, form, status=400, refusal=str(refused))
    return see_other(request, captured.get_absolute_url())


@require_GET
@login_required
def capture_result(request: HttpRequest, pk: int) -> HttpResponse:
    """The capture's confirmation (with its Undo), following its fetch while it is pending."""
    shown = capture.outcome(_own_capture(request, pk))
    htmx = getattr(request, "htmx", False)
    template = "annotations/_capture_result.html" if htmx else "annotations/capture_result.html"
    return render(request, template, {"outcome": shown, "poll_seconds": POLL_SECONDS})


@require_POST
@login_required
def capture_undo(request: HttpRequest, pk: int) -> HttpResponse:
    """Take off the list the item the capture added; nothing else."""
    captured = _own_capture(request, pk)
    if capture.undo(captured):
        messages.success(request, f"Taken off “{captured.reading_list.name}”.")
    else:
        messages.info(request, "The capture added nothing that is still on the list.")
    return see_other(request, captured.get_absolute_url())


@require_http_methods(["GET", "POST"])
@login_required
def capture_settings(request: HttpRequest) -> HttpResponse:
    """The member's capture page: the list captures go to (saved here) and the bookmarklets."""
    initial = {"reading_list": capture.target_list(request.user)}
    form = CaptureTargetForm(request.POST or None, initial=initial, owner=request.user)
    if request.method == "POST" and form.is_valid():
        capture.choose_target(member=request.user, reading_list=form.cleaned_data["reading_list"])
        messages.success(
            request, f"Captured papers go to “{form.cleaned_data['reading_list'].name}”."
        )
        return see_other(request, reverse("annotations:capture-settings"))
    return _settings_page(request, form, status=400 if form.is_bound else 200)


@require_POST
@login_required
def capture_key(request: HttpRequest) -> HttpResponse:
    """A new one-click bookmarklet (the previous key stops working): shown on this answer only,
    as the key is stored hashed."""
    key = capture.make_key(member=request.user)
    form = CaptureTargetForm(
        initial={"reading_list": capture.target_list(request.user)}, owner=request.user
    )
    return _settings_page(request, form, key=key)


@require_POST
@login_required
def capture_key_revoke(request: HttpRequest) -> HttpResponse:
    capture.revoke_key(member=request.user)
    messages.success(request, "Your one-click bookmarklet no longer adds without asking.")
    return redirect("annotations:capture-settings")


def _settings_page(
    request: HttpRequest, form: CaptureTargetForm, *, status: int = 200, key: str = ""
):
    capture_url = request.build_absolute_uri(reverse("annotations:capture"))
    settings_row = getattr(request.user, "capture_settings", None)
    context = {
        "form": form,
        "has_lists": ReadingList.objects.filter(owner=request.user.pk).exists(),
        "bookmarklet": capture.bookmarklet(capture_url),
        "one_click_bookmarklet": capture.bookmarklet(capture_url, key) if key else "",
        "key_made_at": settings_row.key_made_at if settings_row and settings_row.key_hash else None,
    }
    return render(request, "annotations/capture_settings.html", context, status=status)
