"""The comment thread under each paper: logged-in users only; authors edit, staff moderate."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from annotations import discussion, services
from annotations.forms import CommentForm
from annotations.models import Comment
from annotations.views.common import (
    HtmxHttpRequest,
    finish,
    paper_anchor,
    paper_section,
    unconfirmed_delete,
)
from papers.models import Paper


def _get_comment_for_author(request: HttpRequest, pk: int) -> Comment:
    return get_object_or_404(
        Comment.objects.select_related("paper", "author"),
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
    """A new comment, or with `parent` a reply (to a reply: joins the same thread)."""
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = CommentForm(request.POST, paper=paper)
    if not form.is_valid():
        if request.htmx:
            # A failed reply shows its errors under the comment replied to, the text kept.
            errors = {"reply_form": form, "reply_to": request.POST.get("parent", "")}
            overrides = errors if request.POST.get("parent") else {"comment_form": form}
            template, context = paper_section(request, paper, "comments", **overrides)
            return render(request, template, context)
        return render(request, "annotations/comment_form.html", {"form": form, "paper": paper})
    comment = discussion.post_comment(
        paper=paper,
        author=request.user,
        body=form.cleaned_data["body"],
        parent=form.parent,
        anchor=form.anchor,
    )
    return finish(
        request,
        "Reply posted." if comment.parent_id else "Comment posted.",
        redirect_to=comment.get_absolute_url(),
        fragment=paper_section(request, paper, "comments"),
    )


@login_required
def comment_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A page of its own without JavaScript; with htmx, the comment turns into its form in
    place and back."""
    comment = _get_comment_for_author(request, pk)
    data = request.POST if request.method == "POST" else None
    form = CommentForm(data, instance=comment, auto_id=f"comment{comment.pk}_%s")
    if request.method == "POST" and form.is_valid():
        discussion.edit_comment(comment=comment, body=form.cleaned_data["body"])
        if request.htmx:
            context = {"comment": comment, "flash": "Comment updated.", "flash_level": "success"}
            return render(request, "annotations/_comment.html", context)
        return finish(request, "Comment updated.", redirect_to=comment.get_absolute_url())
    if request.htmx and request.GET.get("cancel"):
        # The keyboard goes back to the Edit link it left from.
        context = {"comment": comment, "focus_edit": True}
        return render(request, "annotations/_comment.html", context)
    if request.htmx:
        return render(request, "annotations/_comment_edit.html", {"form": form, "comment": comment})
    return render(
        request,
        "annotations/comment_form.html",
        {"form": form, "comment": comment, "paper": comment.paper},
    )


@require_POST
@login_required
def comment_delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    comment = _get_comment_for_remover(request, pk)
    question = "Remove this comment?"
    if asking := unconfirmed_delete(
        request, question=question, cancel_url=comment.get_absolute_url()
    ):
        return asking
    services.remove_comment(comment=comment, by=request.user)
    paper = comment.paper
    return finish(
        request,
        "Comment removed.",
        redirect_to=paper_anchor(paper, "comments"),
        fragment=paper_section(request, paper, "comments"),
    )
