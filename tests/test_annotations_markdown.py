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
