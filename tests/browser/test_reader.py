"""The PDF reader in Chromium under the real CSP: the first page drawn, its text selectable,
find, keys, the phone layout; no console errors and no CSP violations (also those reported by
`securitypolicyviolation` events, which the worker's would not print)."""

from __future__ import annotations

import pytest

from tests.browser.journey_helpers import PHONE, ConsoleWatch, log_in, overflow
from tests.factories import make_paper, make_user
from tests.pdf_files import make_text_pdf
from tests.pdf_storing import store_test_pdf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Ten pages, each naming itself; "needle" only on page 7.
PAGES = [
    [f"Page {n} begins here.", "Diffusion models learn to denoise.", f"The end of page {n}."]
    for n in range(1, 11)
]
PAGES[6].append("A rare needle hides on this page.")

# Collects CSP violations the page sees (its own and its workers'), before any script runs.
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def reader_paper(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    paper = make_paper("Reading a paper in the browser")
    store_test_pdf(paper, make_text_pdf(PAGES))
    return paper


def open_reader(page, live_server, paper, fragment: str = "", *, shown: int = 1):
    page.add_init_script(WATCH_CSP)
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/{fragment}")
    page.wait_for_selector(".reader[data-ready]")
    page.wait_for_selector(
        f".reader-page[data-page-number='{shown}'][data-rendered] .textLayer span"
    )


def current_page(page) -> int:
    return int(page.input_value("#reader-page"))


def assert_quiet(page, console):
    assert page.evaluate("window.__cspViolations") == []
    assert console.problems == []


def test_the_reader_shows_the_first_page_with_selectable_text(page, live_server, reader_paper):
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, reader_paper)

    assert page.locator("[data-page-count]").text_content() == "10"
    assert page.locator(".reader-page").count() == 10
    # Only the pages near the viewport are drawn.
    drawn = page.locator(".reader-page[data-rendered]").count()
    assert 1 <= drawn < 10
    text = page.locator(".reader-page[data-page-number='1'] .textLayer").inner_text()
    assert "Page 1 begins here." in text
    selected = page.evaluate(
        """() => {
          const spans = document.querySelectorAll(
            ".reader-page[data-page-number='1'] .textLayer span"
          );
          const span = [...spans].find((s) => s.textContent.includes("Diffusion"));
          const range = document.createRange();
          range.selectNodeContents(span);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
          return getSelection().toString();
        }"""
    )
    assert selected == "Diffusion models learn to denoise."
    assert page.get_by_role("link", name="← Back to the paper").get_attribute("href") == (
        reader_paper.get_absolute_url()
    )
    # The paper's workspace panel beside the pages on a wide screen, in view.
    reader = page.locator("section.reader").bounding_box()
    panel = page.locator("aside.annotations").bounding_box()
    assert panel["x"] >= reader["x"] + reader["width"] and panel["y"] < 200
    assert_quiet(page, console)


def test_find_goes_to_the_page_that_holds_the_phrase(page, live_server, reader_paper):
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, reader_paper)

    page.locator(".reader-pages").focus()
    page.keyboard.press("Control+f")
    assert page.evaluate("document.activeElement.id") == "reader-find-input"
    page.keyboard.type("rare NEEDLE")
    page.keyboard.press("Enter")

    page.wait_for_selector(".reader-find-match")
    assert page.locator("[data-find-status]").text_content() == "1 of 1 (page 7)"
    assert current_page(page) == 7
    assert page.locator(".reader-page[data-page-number='7']").is_visible()
    page.keyboard.type("x")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.querySelector('[data-find-status]').textContent === 'Not found'"
    )
    assert_quiet(page, console)


def test_keys_move_between_pages_and_zoom(page, live_server, reader_paper):
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, reader_paper)
    page.locator(".reader-pages").focus()

    page.keyboard.press("n")
    page.keyboard.press("PageDown")
    assert current_page(page) == 3
    page.keyboard.press("p")
    assert current_page(page) == 2
    page.keyboard.press("End")
    assert current_page(page) == 10
    page.wait_for_selector(".reader-page[data-page-number='10'][data-rendered]")
    page.keyboard.press("Home")
    assert current_page(page) == 1

    width = page.locator(".reader-page").first.bounding_box()["width"]
    zoom = page.locator("[data-zoom]").text_content()
    page.keyboard.press("+")
    assert page.locator("[data-zoom]").text_content() != zoom
    assert page.locator(".reader-page").first.bounding_box()["width"] > width
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert page.locator(".reader-page").first.bounding_box()["width"] < width
    assert_quiet(page, console)


def test_an_address_with_a_page_opens_at_that_page(page, live_server, reader_paper):
    open_reader(page, live_server, reader_paper, "#page=5", shown=5)
    assert current_page(page) == 5
    assert page.locator(".reader-page[data-page-number='5']").is_visible()


def test_on_a_phone_the_reader_fits_the_screen(browser, live_server, reader_paper):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, reader_paper)

    toolbar = page.locator(".reader-toolbar").bounding_box()
    assert toolbar["x"] >= 0 and toolbar["x"] + toolbar["width"] <= 360
    first = page.locator(".reader-page").first.bounding_box()
    assert first["width"] <= 360
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name in ("Previous page", "Next page", "Zoom in", "Zoom out"):
        assert page.get_by_role("button", name=name).is_visible()
    assert_quiet(page, console)
    context.close()


def test_a_paper_without_a_stored_pdf_says_so_and_offers_the_upload(
    page, live_server, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    make_user("mira")
    paper = make_paper("No PDF stored", pdf_url="")
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "mira")
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/")
    assert "no PDF link" in page.locator(".reader-missing [role=status]").text_content()
    assert page.locator("#pdf-upload-file").is_visible()
    assert page.get_by_role("link", name="← Back to the paper").is_visible()
    assert console.problems == []


def test_a_member_asks_for_a_missing_pdf_with_the_fetch_button(
    page, live_server, settings, tmp_path
):
    """Opening the reader queues nothing (issue 43); the member's button does, once."""
    from django_tasks_db.models import DBTaskResult

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    make_user("mira")
    paper = make_paper("PDF not fetched yet", pdf_url="https://arxiv.org/pdf/2310.01234")
    console = ConsoleWatch().attach(page)
    log_in(page, live_server, "mira")
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/")
    assert "not here yet" in page.locator(".reader-missing [role=status]").text_content()
    assert not DBTaskResult.objects.exists()

    page.get_by_role("button", name="Fetch the PDF").click()

    page.wait_for_url(f"{live_server.url}/papers/{paper.pk}/read/")
    status = page.locator(".reader-missing [role=status]").text_content()
    assert "It has been asked for from its PDF link" in status
    assert DBTaskResult.objects.count() == 1
    assert console.problems == []


def test_the_paper_page_has_a_read_button(page, live_server, reader_paper):
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}{reader_paper.get_absolute_url()}")
    page.get_by_role("link", name="Read", exact=True).click()
    page.wait_for_selector(".reader[data-ready]")
    assert overflow(page) <= 0


@pytest.mark.parametrize("viewport", [(1280, 900), (360, 740)])
def test_the_reader_has_no_axe_violations(browser, live_server, reader_paper, viewport):
    pytest.importorskip("axe_playwright_python", reason="make test installs axe-playwright-python")
    from tests.browser.test_accessibility import _violations

    make_user("mira")
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    log_in(page, live_server, "mira")
    open_reader(page, live_server, reader_paper)
    page.get_by_role("button", name="Contents").click()
    page.get_by_role("button", name="Find").click()
    assert _violations(page) == []
    context.close()


def test_a_300_page_file_draws_only_the_pages_in_view(page, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    paper = make_paper("A very long appendix")
    store_test_pdf(paper, make_text_pdf([[f"Page {n} of a long file."] for n in range(1, 301)]))
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, paper)

    # Every page has its box, sized before it is drawn (nothing jumps as pages arrive).
    assert page.locator(".reader-page").count() == 300
    heights = page.locator(".reader-page").evaluate_all("els => els.map(e => e.offsetHeight)")
    assert len(set(heights)) == 1 and heights[0] > 0
    assert page.locator(".reader-page[data-rendered]").count() <= 4
    page.keyboard.press("End")
    page.wait_for_selector(".reader-page[data-page-number='300'][data-rendered]")
    assert page.locator(".reader-page[data-rendered]").count() <= 4
    assert_quiet(page, console)


def test_the_outline_leads_to_its_pages(page, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    paper = make_paper("A paper with sections")
    outline = [("1 Introduction", 1), ("4 Method", 4), ("Appendix A", 9)]
    store_test_pdf(paper, make_text_pdf(PAGES, outline=outline))
    console = ConsoleWatch().attach(page)
    open_reader(page, live_server, paper)

    page.get_by_role("button", name="Contents").click()
    sidebar = page.get_by_role("navigation", name="Contents and highlights")
    assert sidebar.locator("[data-outline] a").all_text_contents() == [t for t, _ in outline]
    sidebar.get_by_role("link", name="4 Method").click()
    assert current_page(page) == 4
    page.wait_for_selector(".reader-page[data-page-number='4'][data-rendered]")
    assert_quiet(page, console)


def test_page_text_counts_code_points_and_ends_lines_as_the_contract_says(page, live_server):
    # pagetext.js on its own, in the browser: offsets in code points, "\n" after hasEOL items.
    page.goto(f"{live_server.url}/accounts/login/")
    result = page.evaluate(
        """async () => {
          const { PageText } = await import("/static/js/reader/pagetext.js");
          const text = new PageText([
            { str: "Let 𝑥 be", hasEOL: true },
            { type: "beginMarkedContent" },
            { str: "a ﬁne point.", hasEOL: false },
          ]);
          const [place] = text.findAll("be\\na ﬁne");
          return { text: text.text, length: text.length, place, quote: text.quote(...place) };
        }"""
    )
    assert result["text"] == "Let 𝑥 be\na ﬁne point."
    assert result["length"] == 21  # 𝑥 is one code point (two UTF-16 units)
    assert result["place"] == [6, 14]
    assert result["quote"] == {
        "start": 6,
        "end": 14,
        "exact": "be\na ﬁne",
        "prefix": "Let 𝑥 ",
        "suffix": " point.",
    }


@pytest.mark.parametrize("viewport", [(1366, 900), (390, 844)])
def test_nothing_jumps_while_the_reader_opens_and_draws_pages(
    browser, live_server, reader_paper, viewport
):
    from tests.browser.test_layout_shift import MAX_CLS, OBSERVE

    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(OBSERVE)
    open_reader(page, live_server, reader_paper)
    # Scrolled by script, not by a key: shifts after input would not count.
    page.evaluate("document.querySelector('.reader-pages').scrollTop = 1e9")
    page.wait_for_selector(".reader-page[data-page-number='10'][data-rendered]")

    assert page.evaluate("window.__cls") <= MAX_CLS, page.evaluate("window.__shifts")
    context.close()


def test_a_broken_pdf_says_it_cannot_be_opened(page, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    paper = make_paper("A damaged file")
    store_test_pdf(paper, b"%PDF-1.4\n" + b"not a PDF body at all\n" * 50)
    console = ConsoleWatch().attach(page)
    page.add_init_script(WATCH_CSP)
    page.goto(f"{live_server.url}/papers/{paper.pk}/read/")

    status = page.locator("[data-status]")
    status.filter(has_text="could not be opened").wait_for()
    assert page.locator(".reader-page").count() == 0
    assert_quiet(page, console)


# Compiles the smallest WebAssembly module: what PDF.js's decoders do, allowed or not by the
# policy of the realm it runs in.
COMPILE_WASM = """(() => {
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    return "compiled";
  } catch (error) {
    return error.name;
  }
})()"""


def test_webassembly_compiles_on_the_reader_page_only(page, live_server, reader_paper):
    page.goto(f"{live_server.url}{reader_paper.get_absolute_url()}")
    assert page.evaluate(COMPILE_WASM) == "CompileError"  # the paper page's policy

    open_reader(page, live_server, reader_paper)
    assert page.evaluate(COMPILE_WASM) == "compiled"
    # The worker's own policy comes with its script, which the live server's static handler
    # sends without middleware: bench/reader_bench.py checks it through gunicorn and WhiteNoise.
