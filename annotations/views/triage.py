"""Triage from a list of papers (search results, author and tag pages): save, add to a list,
set a reading status and add a lab tag, for one result or for the selected ones, and suggest
one result to a colleague.

With htmx a control gets back its result's triage block (annotations/_triage.html) with a
short status; a plain form POST gets the message on the page it came from (`next`, kept with
its query string) after a redirect.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import Truncator
from django.views.decorators.http import require_POST

from annotations import services, triage
from annotations.models import ReadingStatus
from annotations.sharing_forms import SuggestForm
from annotations.triage_forms import (
    BulkTriageForm,
    LinkToListForm,
    TriageListForm,
    TriageStatusForm,
    TriageTagForm,
    paper_prefix,
)
from annotations.views.common import HtmxHttpRequest, form_errors_text, next_url
from annotations.views.lists import paper_for_list
from annotations.views.suggestions import suggest_from_form
from papers.models import DISPLAY_TITLE_FIELDS, Paper
from papers.sources.single import LookupFailed


def _paper(paper_pk: int) -> Paper:
    return get_object_or_404(Paper.objects.only(*DISPLAY_TITLE_FIELDS), pk=paper_pk)


def _title(paper: Paper) -> str:
    return Truncator(paper.display_title).chars(60)


def _back(request: HtmxHttpRequest, message: str, level: int) -> HttpResponse:
    """Back to the page the form was on (its `next`, when on this site), with the message."""
    messages.add_message(request, level, message)
    return redirect(next_url(request, reverse("papers:list")))


def _flash_level(level: int) -> str:
    return "error" if level >= messages.WARNING else "success"


def _respond(
    request: HtmxHttpRequest,
    paper: Paper,
    message: str,
    *,
    level: int = messages.SUCCESS,
    tag_name: str = "",
) -> HttpResponse:
    """htmx: the result's triage block, refreshed, saying `message` (400 when refused, which
    static/js/triage.js still swaps in), with a refused `tag_name` back in its box; otherwise
    the message on the page `next` names."""
    if not request.htmx:
        return _back(request, message, level)
    triage.attach_triage_state(request.user, [paper])
    return render(
        request,
        "annotations/_triage.html",
        {
            "paper": paper,
            "flash": message,
            "flash_level": _flash_level(level),
            "tag_name": tag_name,
            # The paper page's block (hx-vals on its section) has no selection, list or tag.
            "single": request.POST.get("layout") == "single",
        },
        status=400 if level >= messages.ERROR else 200,
    )


@require_POST
@login_required
def triage_save(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = _paper(paper_pk)
    reading_list, added = triage.save_papers(owner=request.user, papers=[paper])
    verb = "Saved to" if added else "Already in"
    return _respond(request, paper, f"{verb} “{reading_list.name}”: “{_title(paper)}”.")


@require_POST
@login_required
def triage_unsave(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = _paper(paper_pk)
    reading_list = triage.unsave_paper(owner=request.user, paper=paper)
    if reading_list is None:
        return _respond(request, paper, f"“{_title(paper)}” was not saved.", level=messages.INFO)
    return _respond(request, paper, f"Removed from “{reading_list.name}”: “{_title(paper)}”.")


@require_POST
@login_required
def triage_add_to_list(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = _paper(paper_pk)
    form = TriageListForm(request.POST, owner=request.user, prefix=paper_prefix(paper.pk))
    if not form.is_valid():
        return _respond(request, paper, form_errors_text(form), level=messages.ERROR)
    reading_list = form.cleaned_data["reading_list"]
    added = services.add_papers_to_list(reading_list=reading_list, papers=[paper])
    verb = "Added to" if added else "Already in"
    return _respond(request, paper, f"{verb} “{reading_list.name}”: “{_title(paper)}”.")


@require_POST
@login_required
def triage_status(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = _paper(paper_pk)
    form = TriageStatusForm(request.POST, prefix=paper_prefix(paper.pk))
    if not form.is_valid():
        return _respond(request, paper, form_errors_text(form), level=messages.ERROR)
    status = form.cleaned_data["status"]
    reading_list = triage.set_status(owner=request.user, papers=[paper], status=status)
    label = ReadingStatus(status).label
    return _respond(request, paper, f"{label} (in “{reading_list.name}”): “{_title(paper)}”.")


@require_POST
@login_required
def triage_tag(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = _paper(paper_pk)
    form = TriageTagForm(request.POST, prefix=paper_prefix(paper.pk))
    typed = request.POST.get(form.add_prefix("name"), "")
    if not form.is_valid():
        return _respond(
            request,
            paper,
            "Tag not added: " + form_errors_text(form),
            level=messages.ERROR,
            tag_name=typed,
        )
    try:
        paper_tag = services.add_lab_tag(
            user=request.user, paper=paper, name=form.cleaned_data["name"]
        )
    except services.AlreadyThere as exc:
        return _respond(request, paper, str(exc), level=messages.INFO)
    except services.Refused as exc:
        return _respond(request, paper, str(exc), level=messages.ERROR, tag_name=typed)
    return _respond(request, paper, f"Tagged “{paper_tag.tag.name}”: “{_title(paper)}”.")


@require_POST
@login_required
def triage_suggest(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    """A result's "Suggest to…": the paper page's form and service, under the result's prefix."""
    paper = _paper(paper_pk)
    form = SuggestForm(request.POST, sender=request.user, prefix=paper_prefix(paper.pk))
    message, level = suggest_from_form(request, paper, form)
    return _respond(request, paper, message, level=level)


def _papers_text(count: int) -> str:
    return f"{count} paper{'' if count == 1 else 's'}"


def _bulk_apply(request: HtmxHttpRequest, form: BulkTriageForm) -> str:
    """Apply the bulk action (one transaction each, in annotations.triage) and say what it did."""
    action, papers, user = form.cleaned_data["action"], form.cleaned_data["papers"], request.user
    if action == "save":
        reading_list, added = triage.save_papers(owner=user, papers=papers)
        return f"Saved {_papers_text(len(added))} to “{reading_list.name}”" + _already(
            len(papers) - len(added)
        )
    if action == "list":
        reading_list = form.cleaned_data["reading_list"]
        added = services.add_papers_to_list(reading_list=reading_list, papers=papers)
        return f"Added {_papers_text(len(added))} to “{reading_list.name}”" + _already(
            len(papers) - len(added)
        )
    if action == "status":
        status = form.cleaned_data["status"]
        reading_list = triage.set_status(owner=user, papers=papers, status=status)
        label = ReadingStatus(status).label
        return f"Marked {_papers_text(len(papers))} “{label}” in “{reading_list.name}”."
    name = form.cleaned_data["tag"]
    tagged = triage.tag_papers(user=user, papers=papers, name=name)
    return f"Tagged {_papers_text(tagged)} “{name}”" + _already(len(papers) - tagged, "tagged")


def _already(count: int, what: str = "there") -> str:
    return f" ({_papers_text(count)} already {what})." if count else "."


@require_POST
@login_required
def triage_bulk(request: HtmxHttpRequest) -> HttpResponse:
    form = BulkTriageForm(request.POST, owner=request.user)
    papers: list[Paper] = []
    if not form.is_valid():
        message, level = "Nothing changed: " + form_errors_text(form), messages.ERROR
    else:
        try:
            message, level = _bulk_apply(request, form), messages.SUCCESS
        except services.Refused as exc:
            message, level = f"Nothing changed: {exc}", messages.ERROR
        else:
            papers = form.cleaned_data["papers"]
    if not request.htmx:
        return _back(request, message, level)
    triage.attach_triage_state(request.user, papers)
    return render(
        request,
        "annotations/_triage_bulk_done.html",
        {
            "papers": papers,
            "flash": message,
            "flash_level": _flash_level(level),
        },
        status=400 if level >= messages.ERROR else 200,
    )


@require_POST
@login_required
def triage_link_add(request: HtmxHttpRequest) -> HttpResponse:
    """The results' "Add by link" box: the paper its link names goes on the chosen list (the
    selected results do not); one not yet here is fetched in the background, its page followed."""
    form = LinkToListForm(request.POST, owner=request.user)
    if not form.is_valid():
        return _back(request, "Nothing added: " + form_errors_text(form), messages.ERROR)
    reading_list = form.cleaned_data["reading_list"]
    try:
        paper = paper_for_list(
            request,
            reading_list,
            form.cleaned_data["paper"],
            invoked_by=f"Triage, add to list ({request.user})",
        )
    except LookupFailed as error:
        return _back(request, f"Nothing added: {error.message}", messages.ERROR)
    if isinstance(paper, HttpResponse):
        return paper
    added = services.add_papers_to_list(reading_list=reading_list, papers=[paper])
    verb = "Added to" if added else "Already in"
    return _back(request, f"{verb} “{reading_list.name}”: “{_title(paper)}”.", messages.SUCCESS)
