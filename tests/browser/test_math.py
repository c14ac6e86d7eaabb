"""Math typeset in a real Chromium under the real CSP (static/js/math.js with KaTeX): each
expression on its own, so one KaTeX cannot render stays as its source while the others are
typeset; titles in headings and in results loaded in place by htmx; nothing typeset twice."""

from __future__ import annotations

import pytest

from tests.browser.journey_helpers import ConsoleWatch
from tests.factories import make_paper

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# KaTeX 0.16 throws "Font metrics not found" (not a ParseError) for bold typewriter text; with
# auto-render that one expression left the whole abstract as LaTeX source.
FAILING = r"$\textbf{\texttt{x}}$"


def test_one_failing_expression_leaves_the_others_typeset(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper(
        "Bold typewriter",
        abstract=f"A {FAILING} that KaTeX cannot render, then $\\alpha^2$ and \\(\\beta\\).",
    )
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    abstract = page.locator(".abstract-text")
    expect(abstract.locator(".katex")).to_have_count(2)
    error = abstract.locator(".math-error")
    expect(error).to_have_text(FAILING)
    assert "Font metrics not found" in error.get_attribute("title")
    assert "α" in abstract.locator(".katex").first.inner_text()
    expect(abstract).to_contain_text("that KaTeX cannot render, then")
    assert console.problems == []


def test_parse_errors_show_their_source_and_unknown_macros_stay_in_place(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper(
        "Errors",
        abstract=r"Broken $x^$ here, $\ourmacro + y$ there, a loop $\def\a{\a\a}\a$ and $z$.",
    )
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    abstract = page.locator(".abstract-text")
    # $x^$ and the \def loop (stopped by maxExpand) fail; \ourmacro is shown in red within
    # its typeset expression.
    expect(abstract.locator(".math-error")).to_have_text(["$x^$", r"$\def\a{\a\a}\a$"])
    expect(abstract.locator(".katex")).to_have_count(2)
    assert "ourmacro" in abstract.locator(".katex").first.inner_text()
    assert console.problems == []


def test_a_title_with_math_is_typeset_in_the_heading_and_plain_in_the_tab(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper(r"$\alpha$TC-VAE: on \emph{disentangled} 50\% of $\infty$-Diff")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")

    heading = page.get_by_role("heading", level=1)
    expect(heading.locator(".katex")).to_have_count(2)
    expect(heading.locator("em")).to_have_text("disentangled")
    assert "$" not in heading.inner_text()
    assert page.title().startswith("αTC-VAE: on disentangled 50% of ∞-Diff")
    assert console.problems == []


def test_results_loaded_in_place_are_typeset_once(page, live_server):
    from playwright.sync_api import expect

    make_paper(r"Sampling with $\alpha$-divergences", abstract="About sampling.")
    make_paper("Sampling without math", abstract="About sampling too.")
    make_paper(r"Graphs and $\beta$", abstract="About graphs.")
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/")
    titles = page.locator(".paper-title")
    expect(titles.locator(".katex")).to_have_count(2)

    # Search as you type swaps the results in place (htmx): the new title is typeset too.
    page.get_by_role("searchbox", name="Search papers").press_sequentially("sampl", delay=40)
    expect(page.get_by_role("heading", level=1)).to_have_text("2 papers for “sampl”")
    expect(titles.locator(".katex")).to_have_count(1)
    # Typeset once: no KaTeX inside KaTeX, no dollar left, the element marked as done.
    assert page.locator(".katex .katex").count() == 0
    assert "$" not in titles.all_inner_texts()[0] + titles.all_inner_texts()[1]
    page.evaluate("PaperMath.typeset(document.body)")  # going over it again changes nothing
    expect(titles.locator(".katex")).to_have_count(1)
    assert console.problems == []


def test_escaped_dollars_stay_text(page, live_server):
    from playwright.sync_api import expect

    paper = make_paper("Prices", abstract=r"It costs \$5 and \$10, or $n$ dollars.")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    abstract = page.locator(".abstract-text")
    expect(abstract.locator(".katex")).to_have_count(1)
    expect(abstract).to_contain_text("It costs $5 and $10, or")


def test_search_snippets_typeset_their_math(page, live_server):
    from playwright.sync_api import expect

    make_paper(
        "Wombats",
        abstract=r"A \emph{quokka} bound of $\mathcal{O}(n \log n)$ with $\text{quokka}_i$ marked.",
    )
    console = ConsoleWatch().attach(page)
    page.goto(f"{live_server.url}/?q=quokka")

    snippet = page.locator(".snippet")
    expect(snippet.locator(".katex")).to_have_count(2)
    # The match inside an expression: the whole expression is marked, and typeset.
    expect(snippet.locator("mark .katex")).to_have_count(1)
    expect(snippet.locator("em mark")).to_have_text("quokka")
    assert "$" not in snippet.inner_text() and "\\" not in snippet.inner_text()
    assert console.problems == []


def test_money_in_a_note_stays_text_beside_its_math_in_either_notation(page, live_server):
    from playwright.sync_api import expect

    from tests.browser.journey_helpers import log_in
    from tests.factories import make_note, make_user

    paper = make_paper("Budgets")
    # The note's Markdown keeps these dollars as text; the page must not pair them as math.
    make_note(make_user("erin"), paper, r"It cost $5 and $10, or \$3 each; $n^2$ runs, \(m\) too.")
    log_in(page, live_server, "erin")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    note = page.locator(".note-body")
    expect(note.locator(".katex")).to_have_count(2)
    expect(note).to_contain_text("It cost $5 and $10, or $3 each;")
