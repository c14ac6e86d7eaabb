"""The safe Markdown subset used for notes and comments."""

from __future__ import annotations

import pytest

from annotations.markdown import render_markdown


def test_raw_html_is_shown_as_text():
    assert render_markdown("<img src=x onerror=alert(1)>") == (
        "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"
    )


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JavaScript:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox)",
        "<javascript:alert(1)>",
        "[x](/relative/path)",
    ],
)
def test_only_http_https_and_mailto_become_links(source):
    assert "<a " not in render_markdown(source)


@pytest.mark.parametrize(
    "source", ["[a](https://example.org)", "[a](http://example.org)", "[a](mailto:a@b.org)"]
)
def test_allowed_links_get_nofollow_noopener(source):
    assert 'rel="nofollow noopener"' in render_markdown(source)


def test_line_breaks_and_emphasis_survive():
    html = render_markdown("line one\nline **two**")
    assert "<br />" in html and "<strong>two</strong>" in html


def test_images_are_not_embedded():
    assert "<img" not in render_markdown("![pixel](https://tracker.example/p.gif)")


# @mentions: only names the caller says are members become mentions; everything stays escaped.


def _members(*names):
    return lambda written: {name for name in written if name in names}


def test_a_members_name_becomes_a_mention_and_an_unknown_one_stays_text():
    html = render_markdown("thanks @bob and @nobody.", mentionable=_members("bob"))
    assert html == '<p>thanks <span class="mention">@bob</span> and @nobody.</p>\n'


def test_without_a_lookup_nothing_is_a_mention():
    assert render_markdown("@bob") == "<p>@bob</p>\n"


@pytest.mark.parametrize(
    "source",
    [
        "mail bob@example.org",
        "`@bob` in code",
        "[@bob](https://example.org)",
        "    @bob in a block",
    ],
)
def test_no_mention_inside_addresses_code_or_links(source):
    assert "mention" not in render_markdown(source, mentionable=_members("bob"))


def test_the_lookup_is_asked_only_about_names_written_outside_code():
    asked = []
    render_markdown(
        "@ada `@grace` @alan_t.", mentionable=lambda names: asked.append(names) or set()
    )
    assert asked == [{"ada", "alan_t"}]


@pytest.mark.parametrize(
    "source",
    [
        "@<script>alert(1)</script>",
        '@bob"><img src=x onerror=alert(1)>',
        "@bob<b>bold</b>",
        "@<bob>",
    ],
)
def test_hostile_text_around_mentions_stays_escaped(source):
    html = render_markdown(source, mentionable=lambda names: set(names))
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;" in html


def test_a_hostile_name_that_the_lookup_accepts_is_still_escaped():
    # Names are only ever word characters and . + - @, but the renderer escapes them anyway.
    html = render_markdown("@a.b+c-d", mentionable=lambda names: set(names))
    assert html == '<p><span class="mention">@a.b+c-d</span></p>\n'


# Math: kept as written between its dollars, for KaTeX in the page.

DOLLAR = '<span class="tex-literal">$</span>'


@pytest.mark.parametrize(
    ("source", "html"),
    [
        # Emphasis markers and underscores inside math are math, not emphasis.
        ("$a*b$ and $c*d$", "<p>$a*b$ and $c*d$</p>\n"),
        ("$a^*$ and $b^*$", "<p>$a^*$ and $b^*$</p>\n"),
        (r"$\sum _{i} x$ and $y_ j$", "<p>$\\sum _{i} x$ and $y_ j$</p>\n"),
        # Backslashes inside math are not Markdown escapes.
        (r"$\{x\}$ is a set", "<p>$\\{x\\}$ is a set</p>\n"),
        # Display math on lines of its own.
        ("$$\n\\frac{a}{b}\n$$", '<div class="math-display">$$\n\\frac{a}{b}\n$$</div>\n'),
        # Money is not math: a dollar followed by a digit does not close, and the dollars
        # left as text are marked so that the page's math.js does not pair them either.
        ("costs $5 and $10", f"<p>costs {DOLLAR}5 and {DOLLAR}10</p>\n"),
        (r"\$3 or $x$", f"<p>{DOLLAR}3 or $x$</p>\n"),
        # LaTeX's own delimiters are math too, their backslashes kept (not Markdown escapes).
        (
            r"inline \(x^2\) and \[a_1 = b\]",
            '<p>inline $x^2$ and <div class="math-display">$$a_1 = b$$</div>\n</p>\n',
        ),
        # An opener without its closer stays a Markdown escape; one paragraph's missing
        # closer says nothing about the next.
        ("a \\( b\n\nc \\(d\\)", "<p>a ( b</p>\n<p>c $d$</p>\n"),
        # A dollar after a space does not close (Pandoc's rule): the $n$ after money is math.
        ("from $10 to $20 in $n$ runs", f"<p>from {DOLLAR}10 to {DOLLAR}20 in $n$ runs</p>\n"),
        # Markdown around math still works; code keeps its dollars as code.
        ("**bold** $x_1$ `$y$`", "<p><strong>bold</strong> $x_1$ <code>$y$</code></p>\n"),
    ],
)
def test_math_is_left_for_katex(source, html):
    assert render_markdown(source) == html


def test_hostile_text_inside_math_stays_escaped():
    html = render_markdown("$<script>alert(1)</script>$ and $$</div><img src=x>$$")
    assert "<script" not in html and "<img" not in html and "</div><" not in html
    assert "$&lt;script&gt;alert(1)&lt;/script&gt;$" in html


def test_many_unclosed_latex_openers_take_linear_time():
    import time

    started = time.perf_counter()
    render_markdown("\\(" * 10_000)
    assert time.perf_counter() - started < 1
