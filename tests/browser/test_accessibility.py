"""axe-core (WCAG 2.2 A/AA rules, target-size included) finds nothing on the pages a member
uses, on a desktop (light and dark theme) and on a phone, logged in with notes, lists, tags
and comments present."""

from __future__ import annotations

import pytest

from papers.models import TagKind
from tests.factories import (
    PASSWORD,
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)
from tests.highlight_helpers import make_highlight

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844), "desktop, dark theme": (1280, 900)}


@pytest.fixture
def library(db):
    member = make_user("fay")
    other = make_user("gus")
    papers = [
        make_paper(
            f"Graph paper $\\alpha_{n}$",
            abstract=f"Message passing on graphs, $O(n^{n})$ time, part {n}.",
            authors=["Ada Lovelace", "Alan Turing"],
            tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)],
        )
        for n in range(4)
    ]
    reading_list = make_reading_list(member, "Reading group", papers=papers[:2])
    make_note(member, papers[0], "Read **section 3** again.")
    make_comment(other, papers[0], "Does this scale? cc @fay")
    make_lab_tag(papers[0], "graphs", added_by=other)
    # The panel's Highlights section: the member's, a colleague's shared one, an orphaned one.
    make_highlight(member, papers[0], exact="Message passing on graphs", note="*key* claim")
    make_highlight(other, papers[0], exact="part 0", page=2, visibility="lab")
    make_highlight(member, papers[0], exact="a lost sentence", page=3, orphaned=True)
    return {"papers": papers, "list": reading_list}


def _violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options=AXE_OPTIONS)
    return [
        f"{violation['id']}: {node['target']} {node.get('failureSummary', '')}"
        for violation in results.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_member_pages_have_no_axe_violations(browser, live_server, library, viewport):
    pytest.importorskip("axe_playwright_python", reason="make test installs axe-playwright-python")
    width, height = VIEWPORTS[viewport]
    scheme = "dark" if "dark" in viewport else "light"  # tokens.css's prefers-color-scheme
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        found = {"login": _violations(page)}
        page.fill("input[name=username]", "fay")
        page.fill("input[name=password]", PASSWORD)
        page.click("main form button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        paper = library["papers"][0]
        pages = {
            "list": "/?q=graph",
            "list with facets": "/?track=oral&sort=title",
            "paper": paper.get_absolute_url(),
            "reading list": library["list"].get_absolute_url(),
            "my notes": "/notes/",
            "activity": "/activity/",
        }
        for name, path in pages.items():
            page.goto(f"{live_server.url}{path}")
            found[name] = _violations(page)
    finally:
        context.close()
    assert {name: problems for name, problems in found.items() if problems} == {}
