"""Reading lists: private to their owner, read or edited by the lab, or edited by named editors.

Who may read and who may edit is ReadingListQuerySet's rule (through annotations.selectors);
an edit of a list the member may read but not edit answers 404, as for one they cannot see.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations import drafts, list_reading, selectors, services, throttle
from annotations.export_sources import reading_list_source
from annotations.forms import (
    AddPaperForm,
    AddToListForm,
    ItemStatusForm,
    MoveItemForm,
    ReadingListForm,
)
from annotations.models import ReadingList, ReadingListItem, ReadingStatus
from annotations.sharing_forms import ItemNoteForm, MemberStatusForm
from annotations.views.common import (
    HtmxHttpRequest,
    finish,
    form_errors_text,
    next_url,
    paper_anchor,
    paper_section,
    unconfirmed_delete,
)
from annotations.views.exports import export_response
from papers.link_views import follow_fetch
from papers.models import LinkFetch, Paper
from papers.sources.single import LookupFailed, TooManyLookups


def _get_list_for_reader(request: HttpRequest, pk: int) -> ReadingList:
    """The owner's list or anyone's shared list; another user's private list is a 404."""
    return get_object_or_404(selectors.visible_lists(request.user).select_related("owner"), pk=pk)


def _get_list_for_owner(request: HttpRequest, pk: int) -> ReadingList:
    return get_object_or_404(ReadingList, pk=pk, owner=request.user)


def _get_list_for_editor(request: HttpRequest, pk: int) -> ReadingList:
    return get_object_or_404(selectors.editable_lists(request.user).select_related("owner"), pk=pk)


def _get_item(request: HttpRequest, pk: int, item_pk: int, lists) -> ReadingListItem:
    return get_object_or_404(
        ReadingListItem.objects.select_related("reading_list__owner", "paper"),
        pk=item_pk,
        # Through the list's own key: "reading_list_id" skips the check that a number too
        # large for the column matches nothing, and a huge URL id would be a 500.
        reading_list__pk=pk,
        reading_list__in=lists.values("pk"),
    )


def _get_item_for_editor(request: HttpRequest, pk: int, item_pk: int) -> ReadingListItem:
    return _get_item(request, pk, item_pk, selectors.editable_lists(request.user))


def _get_item_for_reader(request: HttpRequest, pk: int, item_pk: int) -> ReadingListItem:
    return _get_item(request, pk, item_pk, selectors.visible_lists(request.user))


def _unless_removed(write, **kwargs):
    """The write, or the 404 _get_item gives when the item was removed meanwhile."""
    try:
        return write(**kwargs)
    except ReadingListItem.DoesNotExist:
        raise Http404("No such reading list item.") from None


def _list_page_context(request, reading_list: ReadingList, **overrides) -> dict:
    items = overrides.pop("items", None) or selectors.list_items(reading_list)
    context = {
        "reading_list": reading_list,
        "items": items,
        "audience": list_reading.with_readings(reading_list, items, request.user),
        "is_owner": reading_list.owner_id == request.user.pk,
        "can_edit": reading_list.owner_id == request.user.pk
        or reading_list.is_editable_by(request.user),
        "add_form": AddPaperForm(),
        "status_choices": ReadingStatus.choices,
        "priority_choices": ItemStatusForm.PRIORITY_CHOICES,
    }
    context.update(overrides)
    return context


def _items_fragment(request, reading_list: ReadingList, **overrides):
    return "annotations/_list_items.html", _list_page_context(request, reading_list, **overrides)


def _moved_fragment(request, reading_list: ReadingList, item: ReadingListItem, direction: str):
    """The items after a move, the moved item's button in that direction autofocused (htmx
    focuses it after the swap), or its other one at the end it reached: a keyboard moves a
    paper several places without finding it again each time."""
    items = selectors.list_items(reading_list)
    index = next((i for i, each in enumerate(items) if each.pk == item.pk), None)
    if index is not None:
        can = {"up": index > 0, "down": index < len(items) - 1}
        other = "down" if direction == "up" else "up"
        items[index].focus_button = direction if can[direction] else other  # type: ignore[attr-defined]
    return _items_fragment(request, reading_list, items=items)


def _item_fragment(request, reading_list: ReadingList, paper: Paper):
    """The fragment to refresh: the paper page's list section or the list page's items."""
    if request.htmx.target == "paper-lists":
        return paper_section(request, paper, "lists")
    return _items_fragment(request, reading_list)


def _saved_despite_races(form: ReadingListForm, reading_list: ReadingList) -> bool:
    """Save; a same-named list created since validation becomes a form error, not a 500."""
    try:
        with transaction.atomic():
            form.save(commit=False)  # gives form.save_m2m; reading_list is form.instance
            services.save_reading_list(reading_list=reading_list)
            form.save_m2m()  # the named editors
    except IntegrityError:
        form.add_error("name", f"You already have a list called “{reading_list.name}”.")
        return False
    return True


@login_required
def my_lists(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "annotations/my_lists.html",
        {"lists": selectors.own_lists(request.user), "form": ReadingListForm(owner=request.user)},
    )


@require_POST
@login_required
def list_create(request: HtmxHttpRequest) -> HttpResponse:
    form = ReadingListForm(request.POST, owner=request.user)
    if not form.is_valid():
        return render(
            request,
            "annotations/my_lists.html",
            {"lists": selectors.own_lists(request.user), "form": form},
        )
    reading_list = form.save(commit=False)
    reading_list.owner = request.user
    if not _saved_despite_races(form, reading_list):
        return render(
            request,
            "annotations/my_lists.html",
            {"lists": selectors.own_lists(request.user), "form": form},
        )
    return finish(
        request,
        f"Reading list “{reading_list.name}” created.",
        redirect_to=reading_list.get_absolute_url(),
    )


@login_required
def shared_lists(request: HttpRequest) -> HttpResponse:
    return render(
        request, "annotations/shared_lists.html", {"lists": selectors.shared_lists(request.user)}
    )


@login_required
def list_detail(request: HttpRequest, pk: int) -> HttpResponse:
    reading_list = _get_list_for_reader(request, pk)
    return render(
        request, "annotations/list_detail.html", _list_page_context(request, reading_list)
    )


@login_required
def list_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reading_list = _get_list_for_owner(request, pk)
    data = request.POST if request.method == "POST" else None
    form = ReadingListForm(data, instance=reading_list, owner=request.user)
    if request.method == "POST" and form.is_valid() and _saved_despite_races(form, form.instance):
        return finish(request, "Reading list updated.", redirect_to=reading_list.get_absolute_url())
    return render(
        request, "annotations/list_form.html", {"form": form, "reading_list": reading_list}
    )


@require_POST
@login_required
def list_delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reading_list = _get_list_for_owner(request, pk)
    name = reading_list.name
    question = f"Delete the reading list “{name}” and its items?"
    cancel_url = reading_list.get_absolute_url()
    if asking := unconfirmed_delete(request, question=question, cancel_url=cancel_url):
        return asking
    reading_list.delete()
    messages.success(request, f"Reading list “{name}” deleted.")
    return redirect("annotations:lists")


@require_GET
@login_required
def list_export(request: HttpRequest, pk: int, extension: str) -> HttpResponseBase:
    """The list as a file (BibTeX, RIS, CSL-JSON or CSV, see exports.FORMATS) for whoever may
    read it; CSV keeps each item's status and priority."""
    reading_list = _get_list_for_reader(request, pk)
    return export_response(request, reading_list_source(reading_list), extension)


def paper_for_list(
    request: HttpRequest, reading_list: ReadingList, typed: Paper | str, *, invoked_by: str
) -> Paper | HttpResponse:
    """The paper to put on the owner's `reading_list` now (AddPaperForm's `typed`), or the
    answer to give instead: the page of its fetch, queued with the list addition (a link of a
    paper not yet here), or 429 past the member's share of lookups. Raises LookupFailed."""
    if isinstance(typed, Paper):
        return typed
    try:
        asked = services.add_to_list_by_link(
            reading_list=reading_list, link=typed, by=request.user, invoked_by=invoked_by
        )
    except TooManyLookups as refused:
        return throttle.too_many_requests(request, refused.message, retry_after=refused.retry_after)
    if isinstance(asked, LinkFetch):
        return follow_fetch(request, asked)
    if asked is None:  # AddPaperForm read it as a link
        raise LookupFailed(f"No paper matches “{typed}”.")
    return asked


@require_POST
@login_required
def list_item_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Add a paper from the list page by an identifier or its exact title (AddPaperForm); a
    link of a paper not yet here is fetched in the background, its page followed."""
    reading_list = _get_list_for_editor(request, pk)
    form = AddPaperForm(request.POST, member=request.user)
    paper: Paper | HttpResponse | None = None
    if form.is_valid():
        try:
            paper = paper_for_list(
                request,
                reading_list,
                form.cleaned_data["paper"],
                # Never the list's name: curators read the import history, and a list may be
                # private.
                invoked_by=f"Add paper to a reading list ({request.user})",
            )
        except LookupFailed as error:
            form.add_error("paper", error.message)
    if isinstance(paper, HttpResponse):
        return paper
    if paper is None:
        template = (
            "annotations/_list_items.html" if request.htmx else "annotations/list_detail.html"
        )
        return render(request, template, _list_page_context(request, reading_list, add_form=form))
    try:
        services.add_paper_to_list(reading_list=reading_list, paper=paper, by=request.user)
    except services.AlreadyThere as exc:
        return finish(
            request,
            str(exc),
            redirect_to=reading_list.get_absolute_url(),
            # What was typed stays in the box (htmx), as for any other refusal.
            fragment=_items_fragment(request, reading_list, add_form=form),
            level=messages.ERROR,
        )
    return finish(
        request,
        f"Added “{paper.display_title}”.",
        redirect_to=reading_list.get_absolute_url(),
        fragment=_items_fragment(request, reading_list),
    )


@require_POST
@login_required
def paper_list_add(request: HtmxHttpRequest, paper_pk: int) -> HttpResponse:
    """Add a paper from its page to one of the user's lists, or to a new one."""
    paper = get_object_or_404(Paper, pk=paper_pk)
    form = AddToListForm(request.POST, owner=request.user)
    redirect_to = paper_anchor(paper, "lists")
    typed = request.POST.get("new_list_name", "")
    if not form.is_valid():
        drafts.keep(request, paper, new_list_name=typed)
        return finish(
            request,
            form_errors_text(form),
            redirect_to=redirect_to,
            fragment=paper_section(request, paper, "lists", new_list_name=typed),
            level=messages.ERROR,
        )
    reading_list = form.cleaned_data["reading_list"]
    new_name = form.cleaned_data["new_list_name"]
    try:
        if new_name:
            reading_list = services.create_list_with_paper(
                owner=request.user, name=new_name, paper=paper
            )
        else:
            services.add_paper_to_list(reading_list=reading_list, paper=paper)
    except services.AlreadyThere as exc:
        message, level = str(exc), messages.ERROR
    except IntegrityError:
        message, level = f"You already have a list called “{new_name}”.", messages.ERROR
    else:
        message, level = f"Added to “{reading_list.name}”.", messages.SUCCESS
    kept = new_name if level == messages.ERROR else ""
    drafts.keep(request, paper, new_list_name=kept)
    return finish(
        request,
        message,
        redirect_to=redirect_to,
        fragment=paper_section(request, paper, "lists", new_list_name=kept),
        level=level,
    )


@require_POST
@login_required
def list_item_remove(request: HtmxHttpRequest, pk: int, item_pk: int) -> HttpResponse:
    item = _get_item_for_editor(request, pk, item_pk)
    reading_list, paper = item.reading_list, item.paper
    services.remove_item(item=item, by=request.user)
    return finish(
        request,
        f"Removed “{paper.display_title}” from “{reading_list.name}”.",
        redirect_to=next_url(request, reading_list.get_absolute_url()),
        fragment=_item_fragment(request, reading_list, paper),
    )


@require_POST
@login_required
def list_item_move(request: HtmxHttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """Up or down one place (buttons, keyboard) or to a position (a drag's drop)."""
    item = _get_item_for_editor(request, pk, item_pk)
    reading_list = item.reading_list
    form = MoveItemForm(request.POST)
    valid = form.is_valid()
    direction = (form.cleaned_data.get("direction") if valid else "") or "up"
    if not valid:
        message, level = "Unknown direction: use up or down.", messages.ERROR
    elif _unless_removed(
        services.move_item,
        item=item,
        direction=direction,
        to=form.cleaned_data["position"],
        by=request.user,
    ):
        message, level = f"Moved “{item.paper.display_title}”.", messages.SUCCESS
    else:
        message, level = f"“{item.paper.display_title}” is already at that end.", messages.INFO
    return finish(
        request,
        message,
        redirect_to=f"{reading_list.get_absolute_url()}#item-{item.pk}",
        fragment=_moved_fragment(request, reading_list, item, direction),
        level=level,
    )


@require_POST
@login_required
def list_item_status(request: HtmxHttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """The member's own reading status on the item: the owner's is the item's (with its
    priority), anyone else who may read the list keeps theirs beside it."""
    item = _get_item_for_reader(request, pk, item_pk)
    is_owner = item.reading_list.owner_id == request.user.pk
    form = ItemStatusForm(request.POST) if is_owner else MemberStatusForm(request.POST)
    if not form.is_valid():
        message, level = "Not saved: " + form_errors_text(form), messages.ERROR
    elif is_owner:
        _unless_removed(
            services.set_item_status,
            item=item,
            status=form.cleaned_data["status"],
            priority=form.cleaned_data["priority"],
        )
        message, level = f"Updated “{item.paper.display_title}”.", messages.SUCCESS
    else:
        _unless_removed(
            services.set_member_status,
            item=item,
            member=request.user,
            status=form.cleaned_data["status"],
        )
        message, level = f"Updated “{item.paper.display_title}”.", messages.SUCCESS
    return _item_finished(request, item, message, level)


def _item_finished(request: HtmxHttpRequest, item: ReadingListItem, message: str, level: int):
    """Back at the item on the list's page, or the list's items refreshed (htmx)."""
    return finish(
        request,
        message,
        redirect_to=f"{item.reading_list.get_absolute_url()}#item-{item.pk}",
        fragment=_items_fragment(request, item.reading_list),
        level=level,
    )


@require_POST
@login_required
def list_item_note(request: HtmxHttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """The item's note, shared by everyone who may edit the list."""
    item = _get_item_for_editor(request, pk, item_pk)
    form = ItemNoteForm(request.POST)
    if form.is_valid():
        _unless_removed(
            services.set_item_note, item=item, note=form.cleaned_data["note"], by=request.user
        )
        message, level = f"Noted “{item.paper.display_title}”.", messages.SUCCESS
    else:
        message, level = "Not saved: " + form_errors_text(form), messages.ERROR
    return _item_finished(request, item, message, level)
