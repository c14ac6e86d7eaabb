"""The reader's JSON endpoints (docs/highlights.md): list and create on a paper, then edit,
delete and re-anchor one highlight. What the user may not see, or may not change, answers
404, never 403."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotations.views.common import finish, next_url
from highlights import jsonld, selectors, services
from highlights.forms import AnchorForm, HighlightEditForm, HighlightForm, errors_of
from highlights.models import Highlight
from highlights.serialize import highlight_item
from papers.models import Paper
from papers.views import HtmxHttpRequest
from pdfs.pages import stored_pages


def member_required(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
    """A visitor's write gets a JSON refusal (the reader shows it), not the login page."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> JsonResponse:
        if not request.user.is_authenticated:
            message = "Log in to highlight and annotate papers."
            return JsonResponse({"errors": {"__all__": [message]}}, status=403)
        return view(request, *args, **kwargs)

    return wrapped


def _paper(pk: int) -> Paper:
    return get_object_or_404(
        Paper.objects.select_related("pdf_file").only("pk", "pdf_file__sha256"), pk=pk
    )


def _item(request: HttpRequest, highlight: Highlight, status: int = 200) -> JsonResponse:
    sha = services.current_pdf_sha256(highlight.paper)
    return JsonResponse(highlight_item(highlight, request.user, sha), status=status)


def _refused(form) -> JsonResponse:
    return JsonResponse({"errors": errors_of(form)}, status=400)


@require_http_methods(["GET", "HEAD", "POST"])
def paper_highlights(request: HttpRequest, paper_pk: int) -> JsonResponse:
    paper = _paper(paper_pk)
    if request.method == "POST":
        return _create(request, paper)
    user = request.user
    sha = services.current_pdf_sha256(paper)
    highlights = selectors.paper_highlights(user, paper)
    return JsonResponse(
        {
            "highlights": [highlight_item(h, user, sha) for h in highlights],
            "default_visibility": services.default_visibility(user),
            "can_annotate": user.is_authenticated,
        }
    )


@member_required
def _create(request: HttpRequest, paper: Paper) -> JsonResponse:
    # Without a stored text of the present file, PAGE_MAX and POSITION_MAX bound the place.
    form = HighlightForm(request.POST, pages=stored_pages(paper.pk))
    if not form.is_valid():
        return _refused(form)
    highlight = services.create_highlight(
        paper=paper, author=request.user, fields=form.cleaned_data
    )
    highlight.reply_count = 0
    return _item(request, highlight, status=201)


def _own_highlight(request: HttpRequest, pk: int) -> Highlight:
    highlight = selectors.visible_highlight(request.user, pk)
    if highlight is None or highlight.author_id != request.user.pk:
        raise Http404("No such highlight.")
    return highlight


@require_POST
@member_required
def highlight_edit(request: HttpRequest, pk: int) -> JsonResponse:
    highlight = _own_highlight(request, pk)
    form = HighlightEditForm(request.POST)
    if not form.is_valid():
        return _refused(form)
    services.edit_highlight(highlight=highlight, changes=form.changes())
    return _item(request, _reread(request, pk))


@require_POST
@member_required
def highlight_delete(request: HttpRequest, pk: int) -> JsonResponse:
    highlight = _own_highlight(request, pk)
    services.delete_highlight(highlight=highlight)
    return JsonResponse({"deleted": pk})


@require_POST
@login_required
def highlight_visibility(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The one-click switch on the paper page's panel and a list's page (a form, so it works
    without JavaScript): `visibility` private or lab, through the same service as the
    reader's edit (a lab highlight made private withdraws its thread)."""
    highlight = _own_highlight(request, pk)
    form = HighlightEditForm({"visibility": request.POST.get("visibility", "")})
    back = next_url(request, f"{highlight.paper.get_absolute_url()}#panel-highlight-{pk}")
    if not form.is_valid() or not form.cleaned_data["visibility"]:
        return finish(request, "Choose private or lab.", redirect_to=back, level=messages.ERROR)
    services.edit_highlight(highlight=highlight, changes=form.changes())
    shared = "shared with the lab" if highlight.is_shared else "private: only you see it"
    return finish(request, f"Highlight on page {highlight.page} is {shared}.", redirect_to=back)


def _highlight_for_mover(request: HttpRequest, pk: int) -> Highlight:
    highlight = selectors.visible_highlight(request.user, pk)
    if highlight is None or not highlight.may_be_anchored_by(request.user):
        raise Http404("No such highlight.")
    return highlight


@require_POST
@member_required
def highlight_anchor(request: HttpRequest, pk: int) -> JsonResponse:
    """Its author or a curator posts where it is now, within the stored PDF; only its
    selectors change, and who moved it is recorded."""
    highlight = _highlight_for_mover(request, pk)
    form = AnchorForm(request.POST, exact=highlight.exact, pages=stored_pages(highlight.paper_id))
    if not form.is_valid():
        return _refused(form)
    services.anchor_highlight(
        highlight=highlight, fields=form.cleaned_data, orphaned=form.orphaned, by=request.user
    )
    return _item(request, _reread(request, pk))


@require_safe
def highlight_jsonld(request: HttpRequest, pk: int) -> JsonResponse:
    """The highlight as a W3C Web Annotation, to whoever may see it."""
    highlight = selectors.visible_highlight(request.user, pk)
    if highlight is None:
        raise Http404("No such highlight.")
    document = jsonld.annotation(highlight, request.build_absolute_uri)
    return JsonResponse(document, content_type=jsonld.CONTENT_TYPE)


def _reread(request: HttpRequest, pk: int) -> Highlight:
    """With its reply count, as the list gives it."""
    highlight = selectors.visible_highlight(request.user, pk)
    if highlight is None:  # made private by its owner a moment ago, seen by another member
        raise Http404("No such highlight.")
    return highlight
