"""The comment thread under each paper: logged-in users only; authors edit, staff moderate."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from annotations import services
from annotations.forms import CommentForm
from annotations.models import Comment
from annotations.views.common import HtmxHttpRequest, finish, paper_anchor, paper_section
from papers.models import Paper


def _get_comment_for_author(request: HttpRequest, pk: int) -> Comment:
    return get_object_or_404(
        Comment.objects.select_related("paper"),
        pk=pk,
        author=request.user,
        removed_at__isnull=True,
    )


def _get_comment_for_remover(request: HttpRequest, pk: int) -> Comment:
    """The author may remove their comment; staff may remove any."""
    comment = get_object_or_404(
        Comment.objects.select_related("paper"), pk=pk, removed_at__isnull=True
    )
    if comment.author_id != request.user.pk and not request.user.is_staff:
        raise Http404("No such comment.")
    return comment


@require_POST
@login_required
def comment_add(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = CommentForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            template, context = paper_section(request, paper, "comments", comment_form=form)
            return render(request, template, context)
        return render(request, "annotations/comment_form.html", {"form": form, "paper": paper})
    comment = form.save(commit=False)
    comment.paper = paper
    comment.author = request.user
    comment.save()
    return finish(
        request,
        "Comment posted.",
        redirect_to=f"{paper.get_absolute_url()}#comment-{comment.pk}",
        fragment=paper_section(request, paper, "comments"),
    )


@login_required
def comment_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    comment = _get_comment_for_author(request, pk)
    data = request.POST if request.method == "POST" else None
    form = CommentForm(data, instance=comment)
    if request.method == "POST" and form.is_valid():
        comment = form.save(commit=False)
        comment.edited_at = timezone.now()
        comment.save()
        return finish(request, "Comment updated.", redirect_to=comment.get_absolute_url())
    return render(
        request,
        "annotations/comment_form.html",
        {"form": form, "comment": comment, "paper": comment.paper},
    )


@require_POST
@login_required
def comment_delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    comment = _get_comment_for_remover(request, pk)
    services.remove_comment(comment=comment, by=request.user)
    paper = comment.paper
    return finish(
        request,
        "Comment removed.",
        redirect_to=paper_anchor(paper, "comments"),
        fragment=paper_section(request, paper, "comments"),
    )
