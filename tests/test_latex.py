"""The server-side LaTeX pass: text-mode commands become HTML, math is left for KaTeX."""

from __future__ import annotations

import pytest

from papers.latex import render_latex_text


def render(source: str) -> str:
    return str(render_latex_text(source))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"\textit{new}", "<p><em>new</em></p>"),
        (r"\emph{new}", "<p><em>new</em></p>"),
        (r"\textbf{bold}", "<p><strong>bold</strong></p>"),
        (r"\texttt{a_b}", "<p><code>a_b</code></p>"),
        (r"\textbf{a \emph{b} c}", "<p><strong>a <em>b</em> c</strong></p>"),
    ],
)
def test_text_style_commands_become_html(source, expected):
    assert render(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"50\% faster", "<p>50% faster</p>"),
        (r"R\&D", "<p>R&amp;D</p>"),
        (r"snake\_case", "<p>snake_case</p>"),
        (r"\#1", "<p>#1</p>"),
        (r"\{x\}", "<p>{x}</p>"),
    ],
)
def test_escaped_characters_become_literal(source, expected):
    assert render(source) == expected


def test_escaped_dollar_is_literal_and_hidden_from_katex():
    html = render(r"costs \$5 or \$10")
    assert html.count('<span class="tex-literal">$</span>') == 2
    assert "$5" not in html


def test_citations_become_readable_markers():
    assert "[smith2020; doe21]" in render(r"as shown \citep{smith2020, doe21}.")
    assert "[lee19]" in render(r"\citet{lee19} show")
    assert "[a]" in render(r"see \cite{a}")
    assert "\\cite" not in render(r"\citep{x} and \citet{y} and \cite{z}")


def test_url_is_kept_as_text_without_tilde_rewriting():
    html = render(r"code at \url{https://example.org/~me/a_b}")
    assert '<span class="url">https://example.org/~me/a_b</span>' in html
    assert "<a" not in html


def test_quotes_and_ties():
    assert render("``good'' idea~here") == "<p>\u201cgood\u201d idea here</p>"


def test_math_is_left_untouched_for_katex():
    source = r"loss $\mathcal{L}(\theta) = \sum_i x_i$ and $$\frac{a}{b}$$ and \(a\) and \[b\]"
    html = render(source)
    assert r"$\mathcal{L}(\theta) = \sum_i x_i$" in html
    assert r"$$\frac{a}{b}$$" in html
    assert r"\(a\)" in html and r"\[b\]" in html


def test_text_commands_inside_math_are_not_rewritten():
    assert render(r"$\textbf{x} \% 2$") == r"<p>$\textbf{x} \% 2$</p>"


def test_math_inside_a_text_command_survives():
    assert render(r"\emph{with $x_1$ inside}") == "<p><em>with $x_1$ inside</em></p>"


def test_markup_is_escaped_as_text():
    html = render("<script>alert(1)</script> <b onclick=x>hi</b>")
    assert "<script>" not in html and "<b " not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_math_is_html_escaped_but_otherwise_untouched():
    assert render("$x<y$ and $a>b & c$") == "<p>$x&lt;y$ and $a&gt;b &amp; c$</p>"


def test_markup_inside_a_command_argument_is_escaped():
    assert render(r"\textbf{<img src=x onerror=alert(1)>}") == (
        "<p><strong>&lt;img src=x onerror=alert(1)&gt;</strong></p>"
    )


def test_paragraphs_and_line_breaks_are_kept():
    assert render("first line\nsecond line\n\nnew paragraph") == (
        "<p>first line<br>\nsecond line</p>\n<p>new paragraph</p>"
    )


def test_unbalanced_input_is_shown_as_text():
    assert render(r"\textit{never closed") == r"<p>\textit{never closed</p>"
    assert render("price $ alone") == '<p>price <span class="tex-literal">$</span> alone</p>'


def test_marker_characters_in_input_cannot_forge_fragments():
    assert render("\x000\x00 text") == "<p>0 text</p>"
