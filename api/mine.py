"""The member's own things and the lab's: reading lists and their items, notes, highlights,
notifications, and their writes. Every read goes through the site's own rule for it
(ReadingListQuerySet.visible_to and editable_by, HighlightQuerySet.visible_to, a note's owner,
the notifications page's discussion.notifications_for) and every write through the site's
service and form: what a member cannot see or change on a page answers 404 here, as the pages
do. A guest reads none of them, as a visitor (accounts.roles: no more than a visitor sees;
accounts.middleware refuses a guest every page of them, their own included)."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from accounts.roles import is_member
from annotations import discussion, selectors, services
from annotations.forms import ItemStatusForm, LabTagForm, NoteForm
from annotations.models import MemberReading, Note, ReadingList, ReadingListItem
from annotations.sharing_forms import MemberStatusForm
from api.auth import READERS, WRITERS, writer
from api.schemas import (
    CALLER,
    WRITE,
    HighlightIn,
    Id,
    ItemIn,
    ItemOut,
    ListDetailOut,
    ListOut,
    NoteIn,
    NoteOut,
    NotificationOut,
    QueuedOut,
    StatusIn,
    TagIn,
    errors,
)
from highlights import jsonld
from highlights import services as highlight_services
from highlights.forms import HighlightForm
from highlights.models import Highlight
from papers.models import LinkFetch, Paper
from papers.routes import int_url
from papers.sources.single import LookupFailed, TooManyLookups
from pdfs.pages import stored_pages

router = Router(tags=["members"], auth=READERS)

# Highlights and notifications answered per request, newest first.
PER_PAGE = 100


def _readable_lists(user) -> QuerySet[ReadingList]:
    # The rule does not know guests (the pages' middleware keeps them out): asked here.
    if not is_member(user):
        return ReadingList.objects.none()
    return selectors.visible_lists(user)


def _list_out(reading_list: ReadingList, editable: set[int]) -> ListOut:
    return ListOut(
        id=reading_list.pk,
        name=reading_list.name,
        description=reading_list.description,
        visibility=reading_list.visibility,
        owner=reading_list.owner.get_username(),
        can_edit=reading_list.pk in editable,
        url=reading_list.get_absolute_url(),
    )


def _editable_ids(user) -> set[int]:
    if not is_member(user):
        return set()
    return set(selectors.editable_lists(user).values_list("pk", flat=True))


def _errors(form) -> HttpError:
    return HttpError(400, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))


def _paper(paper_id: int) -> Paper:
    found = Paper.objects.filter(pk=paper_id).first()
    if found is None:
        raise HttpError(404, "No such paper.")
    return found


@router.get(
    "/lists",
    response={200: list[ListOut], **errors(*CALLER)},
    summary="The reading lists the caller may read",
)
def lists(request: HttpRequest) -> list[ListOut]:
    editable = _editable_ids(request.user)
    found = _readable_lists(request.user).select_related("owner").order_by("name", "pk")
    return [_list_out(each, editable) for each in found]


def _readable_list(request: HttpRequest, list_id: int) -> ReadingList:
    found = _readable_lists(request.user).select_related("owner").filter(pk=list_id).first()
    if found is None:
        raise HttpError(404, "No such reading list.")
    return found


@router.get(
    "/lists/{id:list_id}",
    response={200: ListDetailOut, **errors(*CALLER, 404)},
    summary="A list and its items",
)
def list_detail(request: HttpRequest, list_id: int) -> ListDetailOut:
    reading_list = _readable_list(request, list_id)
    items = selectors.list_items(reading_list)
    own = reading_list.owner_id == request.user.pk
    statuses: dict[int, str] = {}
    if not own:  # the caller's own status on another's list (MemberReading)
        statuses = dict(
            MemberReading.objects.filter(
                item__reading_list=reading_list, member=cast(User, request.user)
            ).values_list("item_id", "status")
        )
    out = _list_out(reading_list, _editable_ids(request.user))
    return ListDetailOut(
        **out.dict(),
        items=[
            ItemOut(
                id=item.pk,
                paper=item.paper_id,
                title=item.paper.display_title,
                position=item.position,
                status=item.status if own else statuses.get(item.pk, "to_read"),
                priority=item.priority,
                note=item.note,
            )
            for item in items
        ],
    )


@router.post(
    "/lists/{id:list_id}/items",
    auth=WRITERS,
    response={201: ItemOut, 202: QueuedOut, **errors(*WRITE, 400, 404, 409)},
    summary="Add a paper by id, or by identifier (fetched in the background when not here)",
)
def item_add(request: HttpRequest, list_id: int, body: ItemIn):
    user = writer(request)
    reading_list = selectors.editable_lists(user).filter(pk=list_id).first()
    if reading_list is None:
        raise HttpError(404, "No such reading list.")
    if body.paper is not None:
        paper = _paper(body.paper)
    elif body.identifier.strip():
        try:
            asked = services.add_to_list_by_link(
                reading_list=reading_list,
                link=body.identifier,
                by=user,
                invoked_by=f"Add paper to a reading list through the API ({user})",
            )
        except TooManyLookups as refused:
            raise HttpError(429, refused.message) from None
        except LookupFailed as failed:
            raise HttpError(400, failed.message) from None
        if isinstance(asked, LinkFetch):
            url = int_url("api-1:fetch", asked.pk)
            return Status(202, QueuedOut(status=asked.status, status_url=url))
        if asked is None:
            raise HttpError(400, "Not an arXiv, OpenReview or DOI link or id.")
        paper = asked
    else:
        raise HttpError(400, "Give a paper id or an identifier.")
    try:
        item = services.add_paper_to_list(reading_list=reading_list, paper=paper, by=user)
    except services.AlreadyThere as there:
        raise HttpError(409, str(there)) from None
    return Status(201, _item_out(item, paper))


def _item_out(item: ReadingListItem, paper: Paper) -> ItemOut:
    return ItemOut(
        id=item.pk,
        paper=paper.pk,
        title=paper.display_title,
        position=item.position,
        status=item.status,
        priority=item.priority,
        note=item.note,
    )


@router.get(
    "/fetches/{id:fetch_id}",
    response={200: QueuedOut, **errors(*CALLER, 404)},
    url_name="fetch",
)
def fetch(request: HttpRequest, fetch_id: int) -> QueuedOut:
    """A paper asked for by identifier: its fetch's status, and the paper once added. The
    caller's own requests only."""
    user = request.user
    found = None
    if is_member(user):
        found = LinkFetch.objects.filter(pk=fetch_id, requested_by=cast(User, user)).first()
    if found is None:
        raise HttpError(404, "No such request.")
    paper_id = found.paper_id or (found.leader.paper_id if found.leader else None)
    url = int_url("api-1:paper", paper_id) if paper_id else int_url("api-1:fetch", found.pk)
    return QueuedOut(status=found.status, status_url=url)


@router.post(
    "/lists/{id:list_id}/items/{id:item_id}/status",
    auth=WRITERS,
    response={200: ItemOut, **errors(*WRITE, 400, 404)},
    summary="The caller's reading status on an item",
)
def item_status(request: HttpRequest, list_id: int, item_id: int, body: StatusIn):
    user = writer(request)
    item = (
        ReadingListItem.objects.filter(reading_list__in=selectors.visible_lists(user))
        .select_related("reading_list", "paper")
        .filter(pk=item_id, reading_list__pk=list_id)
        .first()
    )
    if item is None:
        raise HttpError(404, "No such reading list item.")
    own = item.reading_list.owner_id == user.pk
    data = {"status": body.status, "priority": body.priority or ""}
    form = ItemStatusForm(data) if own else MemberStatusForm(data)
    if not form.is_valid():
        raise _errors(form)
    try:
        if own:
            services.set_item_status(
                item=item,
                status=form.cleaned_data["status"],
                priority=form.cleaned_data["priority"],
            )
        else:
            services.set_member_status(item=item, member=user, status=form.cleaned_data["status"])
    except ReadingListItem.DoesNotExist:
        raise HttpError(404, "No such reading list item.") from None
    out = _item_out(item, item.paper)
    out.status = form.cleaned_data["status"]
    return Status(200, out)


@router.get(
    "/notes",
    response={200: list[NoteOut], **errors(*CALLER, 422)},
    summary="The caller's own notes",
)
def notes(request: HttpRequest, paper: Id | None = None) -> list[NoteOut]:
    if not is_member(request.user):
        return []
    found = Note.objects.filter(owner=cast(User, request.user))
    if paper is not None:
        found = found.filter(paper_id=paper)
    return [_note_out(note) for note in found[: PER_PAGE * 10]]


def _note_out(note: Note) -> NoteOut:
    return NoteOut(
        id=note.pk,
        paper=note.paper_id,
        body=note.body,
        created_at=note.created_at,
        updated_at=note.updated_at,
    )


@router.post(
    "/notes",
    auth=WRITERS,
    response={201: NoteOut, **errors(*WRITE, 400, 404)},
    summary="A note",
)
def note_add(request: HttpRequest, body: NoteIn):
    user = writer(request)
    form = NoteForm({"body": body.body})
    if not form.is_valid():
        raise _errors(form)
    note = form.save(commit=False)
    note.owner, note.paper = user, _paper(body.paper)
    note.save()
    return Status(201, _note_out(note))


@router.post(
    "/papers/{id:paper_id}/tags",
    auth=WRITERS,
    response={201: dict, **errors(*WRITE, 400, 404, 409)},
    summary="Tag a paper with a lab tag",
)
def tag_add(request: HttpRequest, paper_id: int, body: TagIn):
    user = writer(request)
    paper = _paper(paper_id)
    form = LabTagForm({"name": body.name})
    if not form.is_valid():
        raise _errors(form)
    try:
        paper_tag = services.add_lab_tag(user=user, paper=paper, name=form.cleaned_data["name"])
    except services.AlreadyThere as there:
        raise HttpError(409, str(there)) from None
    except services.Refused as refused:
        raise HttpError(400, str(refused)) from None
    tag = paper_tag.tag
    made = {"id": tag.pk, "name": tag.name, "slug": tag.slug, "url": tag.get_absolute_url()}
    return Status(201, made)


@router.get(
    "/highlights",
    response={200: list[dict], **errors(*CALLER, 422)},
    summary="The lab's highlights and the caller's own, as W3C Web Annotations (JSON-LD)",
)
def highlights(request: HttpRequest, paper: Id | None = None) -> list[dict]:
    found = Highlight.objects.visible_to(request.user).select_related("author").newest_first()
    if paper is not None:
        found = found.filter(paper_id=paper)
    absolute = request.build_absolute_uri
    return [jsonld.annotation(each, absolute) for each in found[:PER_PAGE]]


@router.post(
    "/papers/{id:paper_id}/highlights",
    auth=WRITERS,
    response={201: dict, **errors(*WRITE, 400, 404)},
    summary="Highlight a passage of the paper's PDF (answered as a Web Annotation)",
)
def highlight_add(request: HttpRequest, paper_id: int, body: HighlightIn):
    user = writer(request)
    paper = _paper(paper_id)
    form = HighlightForm(body.dict(), pages=stored_pages(paper.pk))
    if not form.is_valid():
        raise _errors(form)
    made = highlight_services.create_highlight(paper=paper, author=user, fields=form.cleaned_data)
    return Status(201, jsonld.annotation(made, request.build_absolute_uri))


@router.get(
    "/notifications",
    response={200: list[NotificationOut], **errors(*CALLER)},
    summary="The caller's notifications",
)
def notifications(request: HttpRequest) -> list[NotificationOut]:
    if not is_member(request.user):
        return []
    # The notifications page's own: a change to a list the caller no longer reads is left out.
    found = discussion.notifications_for(request.user)
    return [
        NotificationOut(
            id=each.pk,
            kind=each.kind,
            created_at=each.created_at,
            read=each.is_read,
            url=each.get_target_url(),
        )
        for each in found[:PER_PAGE]
    ]
