"""The reading groups' pages: thin views over groups.selectors (reads) and groups.services
(writes). Every page is for logged-in members; groups are visible to the whole lab, joining is
one click, and changing a group or its sessions is for its members (anyone else: 404, as the
site answers for what is not theirs). The .ics feed answers to its secret key alone."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required, login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from groups import selectors, services
from groups.forms import GroupForm, NotesForm, RsvpForm, SessionForm, SwapForm
from groups.ics import feed
from groups.models import ReadingGroup, Session
from papers.numbers import parse_id


def _group_of_member(request: HttpRequest, pk: int) -> ReadingGroup:
    group = get_object_or_404(ReadingGroup, pk=pk)
    if not selectors.is_member(group, request.user):
        raise Http404("Only the group's members change it.")
    return group


def _session(pk: int) -> Session:
    session = selectors.session_for_page(pk)
    if session is None:
        raise Http404("No such session.")
    return session


def _session_of_member(request: HttpRequest, pk: int) -> Session:
    session = _session(pk)
    if not selectors.is_member(session.group, request.user):
        raise Http404("Only the group's members change its sessions.")
    return session


@login_required
@require_http_methods(["GET", "POST"])
def group_list(request: HttpRequest) -> HttpResponse:
    form = GroupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        group = services.create_group(group=form.save(commit=False), creator=request.user)
        messages.success(request, "Group created. You are its first member.")
        return redirect(group)
    return render(
        request,
        "groups/group_list.html",
        {
            "groups": selectors.all_groups(request.user),
            "form": form,
            "calendar_link": selectors.own_calendar_link(request.user, None),
        },
    )


def _group_page(request: HttpRequest, group: ReadingGroup, form: SessionForm, status=200):
    queue = selectors.queue(group)
    upcoming, past = selectors.group_sessions(group)
    context = {
        "group": group,
        "queue": queue,
        "is_member": any(m.member_id == request.user.pk for m in queue),
        "upcoming": upcoming,
        "past": past,
        "session_form": form,
        "calendar_link": selectors.own_calendar_link(request.user, group),
    }
    return render(request, "groups/group_detail.html", context, status=status)


@login_required
@require_GET
def group_detail(request: HttpRequest, pk: int) -> HttpResponse:
    group = get_object_or_404(ReadingGroup, pk=pk)
    return _group_page(request, group, SessionForm(group=group))


@login_required
@require_http_methods(["GET", "POST"])
def group_edit(request: HttpRequest, pk: int) -> HttpResponse:
    group = _group_of_member(request, pk)
    form = GroupForm(request.POST or None, instance=group)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Group saved.")
        return redirect(group)
    return render(request, "groups/group_form.html", {"group": group, "form": form})


@login_required
@require_POST
def join(request: HttpRequest, pk: int) -> HttpResponse:
    group = get_object_or_404(ReadingGroup, pk=pk)
    if services.join(group=group, member=request.user):
        messages.success(request, "You joined the group, at the end of the presenter queue.")
    return redirect(group)


@login_required
@require_POST
def leave(request: HttpRequest, pk: int) -> HttpResponse:
    group = _group_of_member(request, pk)
    services.leave(group=group, member=request.user)
    messages.success(request, "You left the group.")
    return redirect(group)


@login_required
@require_POST
def session_create(request: HttpRequest, pk: int) -> HttpResponse:
    group = _group_of_member(request, pk)
    form = SessionForm(request.POST, group=group)
    if not form.is_valid():
        messages.error(request, "The session was not scheduled: see the form.")
        return _group_page(request, group, form, status=400)
    session = services.schedule_session(
        group=group,
        starts_at=form.cleaned_data["starts_at"],
        papers=form.cleaned_data["papers"],
        agenda=form.cleaned_data["agenda"],
    )
    messages.success(request, "Session scheduled.")
    return redirect(session)


@login_required
@require_GET
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    session = _session(pk)
    is_member = selectors.is_member(session.group, request.user)
    swappable = selectors.swappable(session) if is_member else []
    return render(
        request,
        "groups/session_detail.html",
        {
            "session": session,
            "group": session.group,
            "is_member": is_member,
            "gathered": selectors.gathered(session, request.user),
            "rsvps": selectors.rsvps(session),
            "own_rsvp": selectors.own_rsvp(session, request.user),
            "rsvp_form": RsvpForm(),
            "notes_form": NotesForm(initial={"notes": session.notes}),
            "swap_form": SwapForm(choices=swappable) if swappable else None,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_edit(request: HttpRequest, pk: int) -> HttpResponse:
    session = _session_of_member(request, pk)
    form = SessionForm(request.POST or None, group=session.group, session=session)
    if request.method == "POST" and form.is_valid():
        services.edit_session(session=session, **form.cleaned_data)
        messages.success(request, "Session saved.")
        return redirect(session)
    return render(request, "groups/session_form.html", {"session": session, "form": form})


@login_required
@require_POST
def session_notes(request: HttpRequest, pk: int) -> HttpResponse:
    session = _session_of_member(request, pk)
    form = NotesForm(request.POST)
    if form.is_valid():
        services.save_notes(session=session, notes=form.cleaned_data["notes"], by=request.user)
        messages.success(request, "Notes saved, and posted to each paper's discussion.")
    else:
        messages.error(
            request, "Notes not saved: " + " ".join(str(e) for e in form.errors.get("notes", []))
        )
    return redirect(session)


@login_required
@require_POST
def rsvp(request: HttpRequest, pk: int) -> HttpResponse:
    session = _session_of_member(request, pk)
    form = RsvpForm(request.POST)
    if form.is_valid():
        services.answer(session=session, member=request.user, answer=form.cleaned_data["answer"])
        messages.success(request, "Answer saved.")
    return redirect(session)


@login_required
@require_POST
def swap(request: HttpRequest, pk: int) -> HttpResponse:
    session = _session_of_member(request, pk)
    form = SwapForm(request.POST, choices=selectors.swappable(session))
    if form.is_valid():
        services.swap_presenters(first=session, second=form.cleaned_data["other"])
        messages.success(request, "Presenters swapped.")
    else:
        messages.error(request, "Choose one of the group's upcoming sessions.")
    return redirect(session)


def _feed_group(request: HttpRequest) -> ReadingGroup | None:
    """The group a calendar link is for (the form's `group`), or None for every group."""
    raw = request.POST.get("group", "")
    if not raw:
        return None
    pk = parse_id(raw)  # a database id or None: 5,000 digits are no group, not a 500
    if pk is None:
        raise Http404("No such group.")
    return get_object_or_404(ReadingGroup, pk=pk)


@login_required
@require_POST
def calendar_link_new(request: HttpRequest) -> HttpResponse:
    group = _feed_group(request)
    services.new_calendar_link(owner=request.user, group=group)
    messages.success(request, "A new calendar link: any link made before stops working.")
    return redirect(group or "groups:list")


@login_required
@require_POST
def calendar_link_revoke(request: HttpRequest) -> HttpResponse:
    group = _feed_group(request)
    if services.revoke_calendar_link(owner=request.user, group=group):
        messages.success(request, "Calendar link revoked: calendars using it get nothing more.")
    return redirect(group or "groups:list")


@login_not_required  # calendar apps fetch it without a session: the secret key is the proof
@require_GET
def calendar_feed(request: HttpRequest, key: str) -> HttpResponse:
    link = selectors.feed_link(key) if len(key) <= 64 else None
    if link is None:
        raise Http404("No such calendar.")
    name = link.group.name if link.group else f"Reading groups of {link.owner.get_username()}"
    response = HttpResponse(
        feed(name, selectors.feed_sessions(link)), content_type="text/calendar; charset=utf-8"
    )
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    return response
