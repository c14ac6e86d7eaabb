"""The .ics feeds calendar apps subscribe to (RFC 5545), written with `icalendar`: it folds
long lines, escapes text and writes the VTIMEZONE of each zone the events use, which are
easy to get wrong by hand and which calendar apps are strict about."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

from groups.models import Session

PRODID = "-//paperbrowser//reading groups//EN"


def _description(session: Session) -> str:
    lines = []
    if session.presenter is not None:
        lines.append(f"Presenter: {session.presenter.get_username()}")
    lines += [f"Paper: {item.paper.title}" for item in session.session_papers.all()]
    if session.group.video_link:
        lines.append(f"Video: {session.group.video_link}")
    if session.agenda:
        lines += ["", session.agenda]
    lines += ["", settings.SITE_URL + session.get_absolute_url()]
    return "\n".join(lines)


def session_event(session: Session, stamp) -> Event:
    group = session.group
    event = Event()
    event.add("uid", f"session-{session.pk}@{settings.SITE_URL.split('://')[-1]}")
    event.add("dtstamp", stamp)
    # In the group's zone (TZID and a VTIMEZONE), so the event keeps its wall-clock time
    # across a change of daylight saving time.
    event.add("dtstart", session.local_start)
    event.add("dtend", timezone.localtime(session.ends_at, group.zone))
    event.add("summary", f"{group.name}: reading group")
    event.add("description", _description(session))
    location = group.place or group.video_link
    if location:
        event.add("location", location)
    if group.video_link:
        event.add("url", group.video_link)
    return event


def feed(name: str, sessions: list[Session]) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", name)
    stamp = timezone.now()
    for session in sessions:
        calendar.add_component(session_event(session, stamp))
    calendar.add_missing_timezones()
    return calendar.to_ical()
