"""Pages showing what members typed, on a phone (390 px wide) in a real Chromium: a long word
with no space (a list name, its description, a saved search's name, a note, a comment, a lab
tag) wraps instead of widening the page sideways for everyone who reads it."""

from __future__ import annotations

import pytest

from alerts.models import SavedSearch
from annotations.models import Visibility
from tests.browser.journey_helpers import log_in, overflow
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def long_words(db):
    erin, fred = make_user("erin"), make_user("fred")
    paper = make_paper("Graph networks", abstract="Message passing on graphs.")
    shared = make_reading_list(
        fred, "L" * 100, papers=[paper], visibility=Visibility.SHARED, description="D" * 2000
    )
    make_reading_list(erin, "M" * 100, papers=[paper], description="E" * 2000)
    make_note(erin, paper, "N" * 2000)
    make_comment(fred, paper, "C" * 2000 + " @erin")
    make_lab_tag(paper, "T" * 50, added_by=fred)
    SavedSearch.objects.create(owner=erin, name="S" * 100, query="q=graph")
    return paper, shared


def test_member_text_wraps_on_a_phone(phone, live_server, long_words):
    paper, shared = long_words
    log_in(phone, live_server, "erin")
    wide = {}
    for path in [
        "/lists/",
        "/lists/shared/",
        shared.get_absolute_url(),
        "/notes/",
        "/searches/",
        "/notifications/",
        "/activity/",
        "/lab/",
        paper.get_absolute_url(),
    ]:
        phone.goto(f"{live_server.url}{path}")
        if overflow(phone) > 0:
            wide[path] = overflow(phone)
    assert wide == {}
