"""Suggesting a paper to a colleague, and the colleague's "suggested to me" page. A suggestion
is found through its recipient only (another member's is a 404), a paper to suggest through
the catalogue."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from annotations import services, suggestions
from annotations.models import Suggestion, SuggestionState
from annotations.sharing_forms import AcceptSuggestionForm, SuggestForm
from annotations.views.common import HtmxHttpRequest, finish, form_errors_text, next_url
from papers.models import Paper


@require_POST
@login_required
def paper_suggest(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = SuggestForm(request.POST, sender=request.user)
    back = next_url(request, paper.get_absolute_url())
    if not form.is_valid():
        return finish(request, form_errors_text(form), redirect_to=back, level=messages.ERROR)
    recipient = form.cleaned_data["recipient"]
    try:
        suggestions.suggest(
            sender=request.user,
            recipient=recipient,
            paper=paper,
            reason=form.cleaned_data["reason"],
        )
    except services.AlreadyThere as exc:
        return finish(request, str(exc), redirect_to=back, level=messages.ERROR)
    return finish(request, f"Suggested to {recipient.get_username()}.", redirect_to=back)


@login_required
def suggested_to_me(request: HttpRequest) -> HttpResponse:
    waiting = list(suggestions.suggested_to(request.user))
    form = AcceptSuggestionForm(member=request.user)
    return render(
        request,
        "annotations/suggestions.html",
        {"suggestions": waiting, "lists": form.fields["reading_list"].queryset},  # type: ignore[attr-defined]
    )


def _own_open(request: HttpRequest, pk: int) -> Suggestion:
    return get_object_or_404(
        Suggestion.objects.select_related("paper"),
        pk=pk,
        recipient=request.user,
        state=SuggestionState.OPEN,
    )


@require_POST
@login_required
def suggestion_accept(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    suggestion = _own_open(request, pk)
    form = AcceptSuggestionForm(request.POST, member=request.user)
    if not form.is_valid():
        return finish(
            request,
            "Not accepted: " + form_errors_text(form),
            redirect_to="annotations:suggestions",
            level=messages.ERROR,
        )
    into = form.cleaned_data["reading_list"]
    if not suggestions.accept(suggestion=suggestion, into=into, by=request.user):
        return finish(
            request, "Answered already.", redirect_to="annotations:suggestions", level=messages.INFO
        )
    return finish(
        request,
        f"Added “{suggestion.paper.display_title}” to “{into.name}”.",
        redirect_to="annotations:suggestions",
    )


@require_POST
@login_required
def suggestion_dismiss(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    suggestion = _own_open(request, pk)
    suggestions.dismiss(suggestion=suggestion)
    return finish(
        request,
        f"Dismissed “{suggestion.paper.display_title}”.",
        redirect_to="annotations:suggestions",
    )
