"""A member's notes, comments and lab tags on a phone (390 px wide) in a real Chromium: a
pasted address or a long identifier wraps instead of pushing the page out sideways."""

from __future__ import annotations

import pytest

from tests.browser.journey_helpers import log_in, overflow
from tests.factories import make_comment, make_lab_tag, make_note, make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ADDRESS = "https://example.org/" + "averyverylongpathsegment" * 4 + "?q=1"
IDENTIFIER = "graph_message_passing_benchmark_suite_with_every_dataset"
BODY = f"See {ADDRESS} and `{IDENTIFIER}_configured` or {IDENTIFIER}."


@pytest.fixture
def annotated(db):
    erin = make_user("erin")
    paper = make_paper("Graph networks", abstract="Message passing on graphs.")
    make_note(erin, paper, BODY)
    make_comment(make_user("finn"), paper, f"@erin {BODY}")
    make_lab_tag(paper, "x" * 50, added_by=erin)
    return paper


@pytest.mark.parametrize("path", ["paper", "/notes/", "/activity/", "/notifications/"])
def test_long_words_in_annotations_wrap_on_a_phone(phone, live_server, annotated, path):
    log_in(phone, live_server, "erin")
    url = annotated.get_absolute_url() if path == "paper" else path
    phone.goto(f"{live_server.url}{url}")
    phone.wait_for_selector("main h1")
    assert overflow(phone) <= 0
