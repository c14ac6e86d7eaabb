"""Highlights in the reader, end to end in Chromium against the highlights app: select a
sentence, highlight it with a note, reload, it is there; another member sees the lab's
highlight and not the private one; one the new file no longer holds is listed as orphaned,
one it holds elsewhere is found again; #highlight-ID scrolls to it."""

from __future__ import annotations

import pytest

from highlights.models import Highlight
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.browser.test_reader import WATCH_CSP
from tests.factories import make_paper, make_user
from tests.pdf_files import make_text_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SENTENCE = "Transformers read every word at once."
PAGES = [
    ["An opening line.", SENTENCE, "A closing line."],
    ["The second page.", "Nothing else here."],
    ["The third page holds the moved sentence now.", SENTENCE],
]


@pytest.fixture
def paper(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    paper = make_paper("Highlights in the reader")
    store_test_pdf(paper, make_text_pdf(PAGES))
    return paper


def open_reader(page, live_server, paper, fragment=""):
    page.add_init_script(WATCH_CSP)
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/{fragment}")
    page.wait_for_selector(".reader[data-ready]")
    page.wait_for_selector(".reader-page[data-page-number='1'] .textLayer span")
    page.wait_for_selector("[data-highlight-list][data-loaded]", state="attached")


def select_text(page, page_number: int, text: str) -> None:
    """Select `text` in a page's text layer, as dragging over it does."""
    page.evaluate(
        """([pageNumber, text]) => {
          const layer = document.querySelector(
            `.reader-page[data-page-number='${pageNumber}'] .textLayer`
          );
          const spans = [...layer.querySelectorAll("span")];
          const span = spans.find((s) => s.textContent.includes(text));
          const node = span.firstChild;
          const at = node.data.indexOf(text);
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + text.length);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }""",
        [page_number, text],
    )


def highlight(page, text: str, *, note: str, visibility: str) -> None:
    select_text(page, 1, text)
    page.get_by_role("button", name="Highlight", exact=True).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Note (optional)").fill(note)
    dialog.get_by_label("The lab" if visibility == "lab" else "Only me").check()
    with page.expect_response(lambda r: r.request.method == "POST" and r.status == 201):
        dialog.get_by_role("button", name="Save highlight").click()


def test_a_highlight_with_a_note_is_there_after_a_reload(page, live_server, paper):
    make_user("mira")
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "mira")
    open_reader(page, live_server, paper)

    highlight(page, SENTENCE, note="The key claim.", visibility="private")
    saved = Highlight.objects.get()
    start = len("An opening line.\n")
    assert (saved.page, saved.exact) == (1, SENTENCE)
    assert (saved.start, saved.end) == (start, start + len(SENTENCE))
    assert (saved.prefix, saved.suffix) == ("An opening line.\n", "\nA closing line.")

    page.reload()
    open_reader(page, live_server, paper)
    marks = page.locator(".reader-page[data-page-number='1'] .reader-highlight")
    marks.first.wait_for()
    box = marks.first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    dialog = page.get_by_role("dialog")
    assert dialog.get_by_label("Note (optional)").input_value() == "The key claim."
    page.get_by_role("button", name="Contents").click()
    assert f"“{SENTENCE}”" in page.locator("[data-highlight-list]").inner_text()
    assert page.evaluate("window.__cspViolations") == []
    assert console.problems == []


def test_another_member_sees_the_lab_highlight_and_not_the_private_one(
    browser, page, live_server, paper
):
    make_user("mira")
    make_user("theo")
    log_in(page, live_server, "mira")
    open_reader(page, live_server, paper)
    highlight(page, SENTENCE, note="Shared with everyone.", visibility="lab")
    highlight(page, "A closing line.", note="Only mine.", visibility="private")
    assert Highlight.objects.count() == 2

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    other = context.new_page()
    console = ConsoleWatch().attach(other)
    log_in(other, live_server, "theo")
    open_reader(other, live_server, paper)

    other.get_by_role("button", name="Contents").click()
    listed = other.locator("[data-highlight-list]").inner_text()
    assert SENTENCE in listed and "mira" in listed and "Shared with everyone." in listed
    assert "A closing line." not in listed and "Only mine." not in listed
    marks = other.locator(".reader-page[data-page-number='1'] .reader-highlight")
    marks.first.wait_for()
    assert marks.evaluate_all("els => els.map(e => e.title)") == ["Highlighted by mira"]
    assert "Only mine." not in other.content()
    assert other.evaluate("window.__cspViolations") == []
    assert console.problems == []
    context.close()


def test_a_new_file_finds_a_moved_highlight_and_lists_a_lost_one_as_orphaned(
    page, live_server, paper
):
    mira, theo = make_user("mira"), make_user("theo")
    fields = {"paper": paper, "author": mira, "pdf_sha256": "0" * 64}
    # Made on page 2 of another version; page 3 also holds the sentence, but only page 1 has
    # its context. Mira's reader settles her own; a colleague's lab highlight it only draws
    # where it found it (only its author or a curator moves it).
    placed = {
        "visibility": "lab",
        "page": 2,
        "exact": SENTENCE,
        "prefix": "An opening line.\n",
        "suffix": "\nA closing line.",
        "start": 3,
        "end": 3 + len(SENTENCE),
    }
    moved = Highlight.objects.create(**placed, **fields)
    colleagues = Highlight.objects.create(**placed, **{**fields, "author": theo})
    lost = Highlight.objects.create(
        page=1, exact="A sentence this version dropped.", start=0, end=32, **fields
    )
    log_in(page, live_server, "mira")
    # Anchored in page order: the lost one (page 1), then the moved one (page 2).
    with page.expect_response(lambda r: f"/highlights/{moved.pk}/anchor/" in r.url):
        open_reader(page, live_server, paper)
    page.wait_for_selector(f"[data-highlight-id='{colleagues.pk}']", state="attached")

    moved.refresh_from_db()
    lost.refresh_from_db()
    colleagues.refresh_from_db()
    assert (moved.page, moved.start, moved.orphaned) == (1, 17, False)
    assert (moved.anchored_by, lost.anchored_by) == (mira, mira)
    assert lost.orphaned
    assert (colleagues.page, colleagues.pdf_sha256, colleagues.anchored_by) == (2, "0" * 64, None)
    page.reload()
    open_reader(page, live_server, paper)
    page.get_by_role("button", name="Contents").click()
    entry = page.locator(f"#highlight-item-{lost.pk}")
    assert entry.is_visible()
    assert "not found in this version of the PDF" in entry.inner_text()


def test_an_address_naming_a_highlight_scrolls_to_it(page, live_server, paper):
    mira = make_user("mira")
    pdf = paper.pdf_file
    third = Highlight.objects.create(
        paper=paper,
        author=mira,
        pdf_sha256=pdf.sha256,
        page=3,
        exact=SENTENCE,
        start=45,
        end=45 + len(SENTENCE),
        note="On the last page.",
    )
    log_in(page, live_server, "mira")
    page.add_init_script(WATCH_CSP)
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/#highlight-{third.pk}")

    page.wait_for_selector(".reader-page[data-page-number='3'] .reader-highlight")
    assert page.input_value("#reader-page") == "3"
    assert page.get_by_role("dialog").get_by_label("Note (optional)").input_value() == (
        "On the last page."
    )


def test_the_panels_highlight_link_scrolls_the_reader_beside_it(page, live_server, paper):
    mira = make_user("mira")
    third = Highlight.objects.create(
        paper=paper,
        author=mira,
        pdf_sha256=paper.pdf_file.sha256,
        page=3,
        exact=SENTENCE,
        start=45,
        end=45 + len(SENTENCE),
        note="Listed in the panel.",
    )
    log_in(page, live_server, "mira")
    open_reader(page, live_server, paper)
    assert page.input_value("#reader-page") == "1"

    page.locator(f"aside.annotations a[href$='#highlight-{third.pk}']").click()

    page.wait_for_selector(".reader-page[data-page-number='3'] .reader-highlight")
    assert page.input_value("#reader-page") == "3"
    assert page.get_by_role("dialog").get_by_label("Note (optional)").input_value() == (
        "Listed in the panel."
    )
