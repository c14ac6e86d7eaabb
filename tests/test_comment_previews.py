"""Notification and recent-activity previews show a comment's Markdown as the thread reads,
on one line of text: no "**", "> " or "[text](url)" left, a link by its text, math between its
dollars for KaTeX, a dollar that is money kept from KaTeX, member text escaped
(annotations.previews)."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from annotations.previews import markdown_preview
from papers.latex import LITERAL_DOLLAR
from tests.factories import make_paper

BODY = (
    "Highlighted on page 2 of the PDF:\n\n> a **bold** claim\n\n"
    "See [the paper](https://example.org/x) and `code`, @alice."
)


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("**bold** and _it_", "bold and it"),
        ("[the paper](https://example.org/x)", "the paper"),
        ("> quoted\n\nthen a reply", "quoted then a reply"),
        ("- one\n- two", "one two"),
        ("a line\nand the next", "a line and the next"),
        ("**bold**ly", "boldly"),  # an inline mark is no word break
        ("\\*not emphasis\\*", "*not emphasis*"),  # an escape shows the character
        ("`a*b*c`", "a*b*c"),
    ],
)
def test_a_preview_is_the_text_without_the_markdown(markdown, text):
    assert str(markdown_preview(markdown, 200)) == text


def test_a_preview_escapes_member_text():
    assert str(markdown_preview("<script>alert(1)</script> & co", 200)) == (
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"
    )


def test_math_stays_for_katex_and_money_is_kept_from_it():
    preview = str(markdown_preview("costs $5 and $10, with $x^2$", 200))
    assert preview == (f"costs {LITERAL_DOLLAR}5 and {LITERAL_DOLLAR}10, with $x^2$")


def test_a_long_preview_is_cut_with_an_ellipsis():
    assert str(markdown_preview("**word** " * 50, 20)) == "word word word word…"


def test_notifications_and_activity_show_the_comment_as_text(client, user, other_user):
    client.force_login(other_user)
    paper = make_paper()
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": BODY})
    assert response.status_code == 302
    client.force_login(user)
    for url in (reverse("annotations:notifications"), reverse("annotations:activity")):
        page = html.unescape(client.get(url).content.decode())
        assert "Highlighted on page 2 of the PDF: a bold claim See the paper and code" in page
        for markup in ("**", "> a", "](", "`"):
            assert markup not in page.split("<main", 1)[-1].split("</main>")[0], (url, markup)
