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


def suggest_from_form(request: HttpRequest, paper: Paper, form: SuggestForm) -> tuple[str, int]:
    """Suggest `paper` as the posted form asks (the paper page's, or a result's under its
    prefix): what to tell the member, and at which message level."""
    if not form.is_valid():
        return "Not suggested: " + form_errors_text(form), messages.ERROR
    recipient = form.cleaned_data["recipient"]
    try:
        suggestions.suggest(
            sender=request.user,
            recipient=recipient,
            paper=paper,
            reason=form.cleaned_data["reason"],
        )
    except services.AlreadyThere as exc:
        return str(exc), messages.INFO
    return f"Suggested to {recipient.get_username()}: “{paper.display_title}”.", messages.SUCCESS


@require_POST
@login_required
def paper_suggest(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = SuggestForm(request.POST, sender=request.user)
    message, level = suggest_from_form(request, paper, form)
    back = next_url(request, paper.get_absolute_url())
    return finish(request, message, redirect_to=back, level=level)


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
