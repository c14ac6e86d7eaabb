"""Titles: `latex_inline` (one line of HTML, math left for KaTeX) and `latex_plain` (plain
Unicode for the tab title and meta tags), as the templates use them."""

from __future__ import annotations

import random
import time

import pytest
from django.template import Context, Template

from papers.latex import latex_to_plain_text, render_latex_inline


def inline(title: str) -> str:
    return Template("{% load paper_text %}{{ title|latex_inline }}").render(
        Context({"title": title})
    )


def plain(title: str) -> str:
    return latex_to_plain_text(title)


def in_meta(title: str) -> str:
    """The title as a template puts it in an attribute (autoescaped once)."""
    return Template('{% load paper_text %}<meta content="{{ title|latex_plain }}">').render(
        Context({"title": title})
    )


# --- latex_inline ---------------------------------------------------------------------------


def test_math_is_kept_for_katex_and_text_commands_rendered():
    assert inline(r"$\alpha$TC-VAE: \emph{Disentangled} 50\% R\&D") == (
        r"$\alpha$TC-VAE: <em>Disentangled</em> 50% R&amp;D"
    )
    assert inline(r"$\infty$-Diff") == r"$\infty$-Diff"


def test_display_math_in_a_title_is_typeset_inline():
    # KaTeX typesets $$...$$ as a centred block: a title's link was split around it.
    assert inline(r"$$\sum_i x_i$$ Display Math") == r"\(\sum_i x_i\) Display Math"
    assert inline(r"Bound \[a<b\] and $x$") == r"Bound \(a&lt;b\) and $x$"


@pytest.mark.parametrize(
    "title",
    [
        "A title\nover two lines",
        "A title\n\nwith a blank line",
        r"A title \\ broken by hand",
        r"A title \newline broken",
        r"\emph{A title \\ inside} markup",
        "\\textbf{a\n\nb}",
    ],
)
def test_a_title_is_one_line_without_paragraphs_or_breaks(title):
    html = inline(title)
    assert "<p" not in html and "<br" not in html and "\n" not in html


def test_breaks_become_single_spaces_between_the_words():
    assert inline(r"Deep \\ learning") == "Deep learning"
    assert inline("Deep\n\n  learning \\newline now") == "Deep learning now"
    # The spaces LaTeX asks for stay what they are.
    assert inline(r"5\,Hz \quad x") == "5\u202fHz \u2003 x"


def test_unbalanced_braces_and_unclosed_dollars_are_text():
    assert inline(r"\textit{Never closed") == r"\textit{Never closed"
    assert inline("Sets {a, b") == "Sets {a, b"
    assert inline("a} b") == "a} b"
    assert inline("Costs $ alone") == 'Costs <span class="tex-literal">$</span> alone'


SCRIPT = "<script>alert(1)</script>"


@pytest.mark.parametrize(
    "title",
    [
        SCRIPT,
        f"${SCRIPT}$",
        f"\\({SCRIPT}\\)",
        f"\\emph{{{SCRIPT}}}",
        f"{{\\em {SCRIPT}}}",
        f"\\footnote{{{SCRIPT}}}",
        f"\\href{{{SCRIPT}}}{{{SCRIPT}}}",
        f"\\method{{{SCRIPT}}}",
        f"$ {SCRIPT}",
        f"{SCRIPT} \\\\ x",
    ],
)
def test_hostile_html_is_always_escaped(title):
    html = inline(title)
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<script" not in in_meta(title)


def test_random_titles_never_hold_paragraphs_or_breaks():
    atoms = [
        "a", " ", "\n", "\n\n", "$", "$$", "\\(", "\\)", "{", "}", "\\\\", "\\newline",
        "\\emph{", "{\\em ", "\\footnote{", "\\href{a}{", "\\method", "~", "<p>", "<br>",
    ]  # fmt: skip
    rng = random.Random(7)
    for _ in range(2000):
        title = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 10)))
        html = str(render_latex_inline(title))
        assert "<p>" not in html and "<br>" not in html and "\n" not in html, title


def test_filter_accepts_an_empty_title():
    assert inline(None) == ""
    assert Template("{% load paper_text %}{{ t|latex_plain }}").render(Context({"t": None})) == ""


# --- latex_plain ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (r"$\alpha$TC-VAE", "αTC-VAE"),
        (r"$\infty$-Diff: score-based diffusion", "∞-Diff: score-based diffusion"),
        (r"PixArt-$\alpha$: Fast Training", "PixArt-α: Fast Training"),
        (r"$\mathcal{O}(n^2)$ attention", "𝒪(n^2) attention"),
        # The space after a command is kept: pylatexenc's strict reading gave "O(n logn)".
        (r"Sorting in $O(n \log n)$ time", "Sorting in O(n log n) time"),
        (r"$\sin x$ activations", "sin x activations"),
        # pylatexenc turned & into spaces and took % for a comment (dropping the rest).
        ("R&D and Q&A", "R&D and Q&A"),
        ("Beating 50% of humans", "Beating 50% of humans"),
        (r"Tom \& Jerry: 50\%", "Tom & Jerry: 50%"),
        ("When a < b > c", "When a < b > c"),
        (r"\textbf{Bold} {\em claims}", "Bold claims"),
        (r"\method: a \eg Study", "method: a e.g. Study"),
        (r"Hyv\"arinen \L ojasiewicz", "Hyvärinen Łojasiewicz"),
        (r"Code \href{https://x.org}{here}", "Code here (https://x.org)"),
        (r"\url{https://a.org/~me}", "https://a.org/~me"),
        ("Costs $ alone", "Costs $ alone"),
        ("A title\nover \\\\ lines", "A title over lines"),
    ],
)
def test_plain_text_reads_as_the_page_does(title, expected):
    assert plain(title) == expected


def test_math_without_a_unicode_form_keeps_its_source_without_the_dollars():
    # An unknown macro would vanish in pylatexenc's reading; its source is kept instead.
    assert plain(r"$\ourop(x)$-nets") == r"\ourop(x)-nets"
    assert plain(r"Bounds \(\mathbbm{1}_x\)") == r"Bounds \mathbbm{1}_x"


def test_plain_text_is_escaped_once_by_the_template():
    assert in_meta("R&D <b>") == '<meta content="R&amp;D &lt;b&gt;">'
    assert in_meta(r"$\alpha$ \& \%") == '<meta content="α &amp; %">'


@pytest.mark.parametrize(
    "title",
    [
        "{" * 500,
        "$" * 500,
        "\\(" * 250,
        "$\\frac{" * 70,
        "$" + "{" * 298 + "$",
        "$\\alpha$ " * 60,
        "\\" * 500,
        "$\\begin{array}$",
        "$\\left($",
    ],
    ids=lambda title: f"{title[:8]}...{len(title)}",
)
def test_plain_text_never_raises_and_stays_fast_on_hostile_titles(title):
    start = time.perf_counter()
    text = plain(title)
    assert time.perf_counter() - start < 1.0
    assert isinstance(text, str) and "\n" not in text


def test_random_titles_always_give_plain_text():
    atoms = [
        "a", " ", "$", "$$", "\\(", "\\)", "{", "}", "\\\\", "\\alpha", "\\frac{", "^", "_",
        "\\emph{", "{\\em ", "\\href{a}{", "\\url{", "\\method", "\\'", "&", "%", "<b>", "\\",
    ]  # fmt: skip
    rng = random.Random(11)
    for _ in range(2000):
        title = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 10)))
        text = plain(title)
        assert "<span" not in text and "<em>" not in text and "&amp;" not in text, title
