"""The .ics feeds read back by `icalendar`: every session with its zone, place and link; a
revoked address answers 404, and a new one works."""

from __future__ import annotations

import pytest
from django.urls import reverse
from icalendar import Calendar

from groups import services
from groups.models import CalendarLink
from tests.factories import make_paper, make_user
from tests.group_helpers import PARIS, make_group, paris

pytestmark = pytest.mark.django_db


def events(response):
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = Calendar.from_ical(response.content)
    return calendar, sorted(calendar.walk("VEVENT"), key=lambda event: event.decoded("dtstart"))


def three_sessions(group):
    paper = make_paper(
        "Attention, folded over a line longer than seventy-five octets, with; commas"
    )
    return [
        services.schedule_session(group=group, starts_at=start, papers=[paper])
        for start in (paris(2031, 3, 20, 16), paris(2031, 3, 27, 16), paris(2031, 4, 3, 16))
    ]


def test_the_group_feed_lists_every_session_with_its_zone_place_and_link(client):
    ann, bea = make_user("ann"), make_user("bea")
    group = make_group([ann, bea])
    sessions = three_sessions(group)
    client.force_login(ann)
    client.post(reverse("groups:calendar-link-new"), {"group": group.pk})
    link = CalendarLink.objects.get(owner=ann, group=group)
    client.logout()  # calendar apps come without a session
    calendar, found = events(client.get(link.get_absolute_url()))
    assert [tz["TZID"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Paris"]
    assert len(found) == 3
    for event, session in zip(found, sessions, strict=True):
        start = event.decoded("dtstart")
        assert start == session.starts_at and start.tzinfo.key == "Europe/Paris"
        assert event["DTSTART"].params["TZID"] == "Europe/Paris"
        assert start.hour == 16  # wall-clock time, summer time (27 March on) or not
        assert str(event["LOCATION"]) == "Room 4.12"
        assert str(event["URL"]) == "https://meet.example.org/thursday"
        assert "seventy-five octets, with; commas" in str(event["DESCRIPTION"])
    assert {str(e["UID"]) for e in found} == {f"session-{s.pk}@127.0.0.1:8000" for s in sessions}


def test_a_members_feed_holds_the_sessions_of_every_group_they_are_in(client):
    ann, bea = make_user("ann"), make_user("bea")
    mine, other = make_group([ann, bea]), make_group([bea], name="Not ann's")
    services.schedule_session(group=mine, starts_at=paris(2031, 3, 20, 16), papers=[])
    services.schedule_session(group=other, starts_at=paris(2031, 3, 21, 10), papers=[])
    link = services.new_calendar_link(owner=ann, group=None)
    _calendar, found = events(client.get(link.get_absolute_url()))
    assert [str(e["SUMMARY"]) for e in found] == ["Thursday club: reading group"]


def test_a_revoked_link_answers_404_and_a_new_one_works(client):
    ann = make_user("ann")
    group = make_group([ann])
    client.force_login(ann)
    client.post(reverse("groups:calendar-link-new"), {"group": group.pk})
    old = CalendarLink.objects.get().get_absolute_url()
    assert client.get(old).status_code == 200
    client.post(reverse("groups:calendar-link-revoke"), {"group": group.pk})
    assert client.get(old).status_code == 404
    client.post(reverse("groups:calendar-link-new"), {"group": group.pk})
    new = CalendarLink.objects.get().get_absolute_url()
    assert new != old and client.get(new).status_code == 200
    assert client.get(old).status_code == 404


def test_an_unknown_key_answers_404(client):
    assert client.get(reverse("groups:calendar-feed", args=["nope"])).status_code == 404


def test_times_keep_their_zone_across_daylight_saving():
    start = paris(2031, 3, 20, 16)
    assert start.utcoffset() != paris(2031, 4, 3, 16).utcoffset()
    assert PARIS.key == "Europe/Paris"
