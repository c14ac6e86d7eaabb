"""Saved searches (/searches/), their unsubscribe link, and the lab page (/lab/)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required, login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from alerts.forms import RenameForm, SaveSearchForm
from alerts.lab import DEFAULT_PERIOD, PERIODS, lab_page
from alerts.models import DigestState, SavedSearch, new_token
from alerts.queries import standings
from annotations.views.common import unconfirmed_delete
from papers.views import HtmxHttpRequest


class MemberRequest(HtmxHttpRequest):
    """A request that login_required let through: its user is a member."""

    user: User


def _get_search_for_user(request: MemberRequest, pk: int) -> SavedSearch:
    # Another member's saved search is a 404: its existence does not leak.
    return get_object_or_404(SavedSearch, pk=pk, owner=request.user)


@login_required
def searches(request: MemberRequest) -> HttpResponse:
    saved = list(request.user.saved_searches.all())
    standing = standings(request.user, saved)
    digest = DigestState.objects.filter(user=request.user).first()
    return render(
        request,
        "alerts/searches.html",
        {
            "rows": [(s, standing[s.pk]) for s in saved],
            "unsubscribed": bool(digest and digest.unsubscribed_at),
        },
    )


@require_POST
@login_required
def save(request: MemberRequest) -> HttpResponse:
    """Save the list page's search. htmx gets the save box back in place; without JavaScript a
    success goes back to the list and an error shows the form again, nothing typed lost."""
    form = SaveSearchForm(request.POST, owner=request.user)
    saved = None
    if form.is_valid():
        saved = SavedSearch.objects.create(
            owner=request.user, name=form.cleaned_data["name"], query=form.cleaned_data["query"]
        )
    context = {
        "save_form": form,
        "saved": saved,
        "save_query": form.cleaned_data.get("query", request.POST.get("query", "")),
    }
    if request.htmx:
        return render(request, "alerts/_save_search.html", context)
    if saved is None:
        return render(request, "alerts/save_search.html", context, status=400)
    messages.success(request, f"Saved search “{saved.name}”.")
    return redirect(saved.list_url)


@require_http_methods(["GET", "POST"])
@login_required
def open_search(request: MemberRequest, pk: int) -> HttpResponse:
    """Opening a saved search from /searches/ (a POST) is looking at it: its "new" count starts
    again from now. A GET (a digest's link, a bookmark, a mail scanner, a prefetch) only goes to
    the list."""
    search = _get_search_for_user(request, pk)
    if request.method == "POST":
        search.last_seen_at = timezone.now()
        search.save(update_fields=["last_seen_at"])
    return redirect(search.list_url)


@require_POST
@login_required
def rename(request: MemberRequest, pk: int) -> HttpResponse:
    search = _get_search_for_user(request, pk)
    form = RenameForm(request.POST, search=search)
    if not form.is_valid():
        return render(request, "alerts/rename.html", {"search": search, "form": form}, status=400)
    search.name = form.cleaned_data["name"]
    search.save(update_fields=["name"])
    messages.success(request, f"Renamed to “{search.name}”.")
    return redirect("alerts:searches")


@require_POST
@login_required
def toggle_alert(request: MemberRequest, pk: int) -> HttpResponse:
    search = _get_search_for_user(request, pk)
    search.alert = not search.alert
    search.save(update_fields=["alert"])
    state = "on" if search.alert else "off"
    messages.success(request, f"E-mail alert {state} for “{search.name}”.")
    return redirect("alerts:searches")


@require_POST
@login_required
def delete(request: MemberRequest, pk: int) -> HttpResponse:
    search = _get_search_for_user(request, pk)
    question = f"Delete the saved search “{search.name}”?"
    cancel_url = reverse("alerts:searches")
    if asking := unconfirmed_delete(request, question=question, cancel_url=cancel_url):
        return asking
    search.delete()
    messages.success(request, f"Deleted the saved search “{search.name}”.")
    return redirect("alerts:searches")


@login_not_required  # the e-mail's link works without logging in; its token is the proof
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks to confirm (mail scanners follow links); only the POST unsubscribes."""
    if len(token) > 64:
        raise Http404
    state = get_object_or_404(DigestState.objects.select_related("user"), token=token)
    if request.method == "POST":
        if state.unsubscribed_at is None:
            state.unsubscribed_at = timezone.now()
            state.save(update_fields=["unsubscribed_at"])
        return render(request, "alerts/unsubscribed.html", {"state": state})
    return render(request, "alerts/unsubscribe.html", {"state": state, "token": token})


@require_POST
@login_required
def resubscribe(request: MemberRequest) -> HttpResponse:
    # A new token: the link in an old digest must not unsubscribe the member again.
    DigestState.objects.filter(user=request.user, unsubscribed_at__isnull=False).update(
        unsubscribed_at=None, token=new_token()
    )
    messages.success(request, "The digest e-mail is on again.")
    return redirect("alerts:searches")


@login_required
def lab(request: MemberRequest) -> HttpResponse:
    period = request.GET.get("period", DEFAULT_PERIOD)
    if period not in PERIODS:
        period = DEFAULT_PERIOD
    return render(
        request,
        "alerts/lab.html",
        {"lab": lab_page(period), "periods": PERIODS, "period_label": PERIODS[period][0]},
    )
