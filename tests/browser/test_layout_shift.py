"""Nothing jumps (issue 28, point 4): the cumulative layout shift Chromium reports (a
PerformanceObserver on 'layout-shift' entries, those without recent input) stays at most 0.02 on
the list page, a search and a paper page (and the other pages each role opens most: a reading
list, notes and the lab page; an author page and the login page), for a visitor and a member,
at 1366×900 and 390×844, over the seed papers in fixtures/: while the page loads, its math is
typeset and its fonts arrive, and while it is scrolled to the end (the Cite section loads itself
there). Each page is a first visit: a new browser context, nothing cached."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client

from papers.models import Paper
from tests.browser.conftest import SCREENSHOT_DIR
from tests.factories import make_lab_tag, make_note, make_reading_list, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAX_CLS = 0.02
VIEWPORTS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}

# Runs before the page's own scripts: every shift from the first paint on is counted.
OBSERVE = """
window.__cls = 0;
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__cls += entry.value;
    window.__shifts.push({
      value: entry.value,
      sources: (entry.sources || [])
        .map(s => s.node && s.node.nodeName + '.' + (s.node.className || '')),
    });
  }
}).observe({type: 'layout-shift', buffered: true});
"""


@pytest.fixture
def corpus(db):
    call_command("import_papers", "fixtures/", verbosity=0)
    math_paper = Paper.objects.filter(abstract__contains="$").exclude(title="").earliest("pk")
    member = make_user("ana")
    make_reading_list(member, "Reading group", papers=[math_paper], is_default=True)
    make_lab_tag(math_paper, "reading group", added_by=member)
    make_note(member, math_paper, "The bound in **section 3**, $O(n \\log n)$.")
    return math_paper, member


def _session_cookie(live_server, user) -> dict:
    """A logged-in session without visiting the login page, whose files would warm the cache."""
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def _settle(page) -> None:
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)


def _measure(page, url: str) -> tuple[float, list]:
    page.goto(url)
    _settle(page)
    # Down the page as a reader scrolls, which brings the Cite section in.
    height = page.evaluate("document.documentElement.scrollHeight")
    for _ in range(0, height, 600):
        page.mouse.wheel(0, 600)
        page.wait_for_timeout(60)
    _settle(page)
    return page.evaluate("window.__cls"), page.evaluate("window.__shifts")


@pytest.mark.parametrize("role", ["visitor", "member"])
def test_cumulative_layout_shift_stays_small(browser, live_server, corpus, role):
    paper, corpus_member = corpus
    pages = {
        "list": "/",
        "search": "/?q=diffusion",
        "paper": paper.get_absolute_url(),
        # The other pages each role opens most.
        **(
            {
                "reading list": paper.reading_lists.get().get_absolute_url(),
                "notes": "/notes/",
                "lab": "/lab/",
            }
            if role == "member"
            else {
                "author": paper.authorships.first().author.get_absolute_url(),
                "login": "/accounts/login/",
            }
        ),
    }
    found: dict[str, float] = {}
    shifts: dict[str, list] = {}
    for name, viewport in VIEWPORTS.items():
        for label, path in pages.items():
            # A new browser context each time: nothing cached, as a first visit.
            context = browser.new_context(viewport=viewport, is_mobile=name == "phone")
            page = context.new_page()
            try:
                if role == "member":
                    context.add_cookies([_session_cookie(live_server, corpus_member)])
                page.add_init_script(OBSERVE)
                key = f"{label} {name}"
                found[key], shifts[key] = _measure(page, f"{live_server.url}{path}")
                # Nor does any page scroll sideways.
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= viewport["width"], f"{key} is {wide} px wide"
            finally:
                context.close()
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    (SCREENSHOT_DIR / f"cls-{role}.json").write_text(
        json.dumps({"cls": found, "shifts": shifts}, indent=1)
    )
    too_much = {key: round(value, 4) for key, value in found.items() if value > MAX_CLS}
    assert too_much == {}, {key: shifts[key] for key in too_much}
