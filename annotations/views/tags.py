"""Lab tags: any logged-in user tags a paper; the tagger or staff untag it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from annotations import drafts, services
from annotations.forms import LabTagForm
from annotations.views.common import (
    HtmxHttpRequest,
    finish,
    form_errors_text,
    paper_anchor,
    paper_section,
)
from papers.models import Paper, PaperTag, TagKind


def _get_lab_tag_for_remover(request: HttpRequest, pk: int) -> PaperTag:
    paper_tag = get_object_or_404(
        PaperTag.objects.select_related("tag", "paper"), pk=pk, tag__kind=TagKind.LAB
    )
    if paper_tag.added_by_id != request.user.pk and not request.user.is_staff:
        raise Http404("No such tag.")
    return paper_tag


@require_POST
@login_required
def tag_add(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = LabTagForm(request.POST)
    # A refused name comes back in the box to be corrected (with htmx; see finish()).
    typed = request.POST.get("name", "")
    if not form.is_valid():
        message, level = "Tag not added: " + form_errors_text(form), messages.ERROR
    else:
        try:
            paper_tag = services.add_lab_tag(
                user=request.user, paper=paper, name=form.cleaned_data["name"]
            )
        except services.AlreadyThere as exc:
            message, level = str(exc), messages.INFO
        except services.Refused as exc:
            message, level = str(exc), messages.ERROR
        else:
            message, level = f"Tagged “{paper_tag.tag.name}”.", messages.SUCCESS
    kept = typed if level == messages.ERROR else ""
    drafts.keep(request, paper, tag_name=kept)
    return finish(
        request,
        message,
        redirect_to=paper_anchor(paper, "tags"),
        fragment=paper_section(request, paper, "tags", tag_name=kept),
        level=level,
    )


@require_POST
@login_required
def tag_remove(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    paper_tag = _get_lab_tag_for_remover(request, pk)
    paper, name = paper_tag.paper, paper_tag.tag.name
    paper_tag.delete()
    return finish(
        request,
        f"Removed the tag “{name}”.",
        redirect_to=paper_anchor(paper, "tags"),
        fragment=paper_section(request, paper, "tags"),
    )
