""" "My notes and highlights" is opened in Markdown viewers that may render raw HTML: rendered
by a CommonMark renderer with HTML on (markdown-it-py's "commonmark" preset), no title, list
name or quote becomes a tag or a link, and notes cannot open raw HTML or an autolink (their
own Markdown, links included, is kept); a normal title still reads as written (issue 43,
finding 13)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse
from markdown_it import MarkdownIt

from tests.factories import make_note, make_paper, make_reading_list
from tests.highlight_helpers import make_highlight

pytestmark = pytest.mark.django_db

IMG = "<img src=x onerror=alert(1)>"
LINK = "[link](javascript:alert(1))"
AUTOLINK = "<javascript:alert(1)>"
NORMAL = "Attention Is All You Need: 2 * 3_4 & <x> | C# [v2] #"
# What the file may hold once rendered: the document's own structure and the notes' Markdown.
ALLOWED_TAGS = {"h1", "h2", "h3", "p", "blockquote", "a", "strong", "em", "code", "pre", "br"}


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.headings: list[str] = []
        self._in_heading = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in {"h1", "h2"}:
            self._in_heading = True
            self.headings.append("")

    def handle_endtag(self, tag):
        if tag in {"h1", "h2"}:
            self._in_heading = False

    def handle_data(self, data):
        if self._in_heading:
            self.headings[-1] += data


def rendered(markdown: str) -> Elements:
    """As the most permissive viewer would: raw HTML live (the preset's html=True) and links
    of any scheme (markdown-it refuses javascript: itself; some viewers do not)."""
    renderer = MarkdownIt("commonmark")
    renderer.validateLink = lambda url: True
    elements = Elements()
    elements.feed(renderer.render(markdown))
    return elements


def assert_inert(elements: Elements) -> None:
    for tag, attrs in elements.tags:
        assert tag in ALLOWED_TAGS, (tag, attrs)
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not attrs.get("href", "").lower().startswith("javascript:"), (tag, attrs)


def test_a_hostile_title_quote_and_note_stay_text_in_a_paper_export(client, user):
    paper = make_paper(f"{IMG} {LINK}")
    make_note(user, paper, f"**mine** {IMG} {AUTOLINK}\n\n<script>alert(1)</script>")
    make_highlight(user, paper, exact=f"{IMG}\n{LINK}", note=f"<b>bold</b> {AUTOLINK}")
    client.force_login(user)
    text = client.get(reverse("highlights:paper-export", args=[paper.pk])).content.decode()
    elements = rendered(text)
    assert_inert(elements)
    assert elements.headings[0] == f"{IMG} {LINK}"  # the title reads as written
    assert ("strong", {}) in elements.tags  # the note's own Markdown is kept


def test_a_hostile_list_name_and_titles_stay_text_in_a_list_export(client, user):
    hostile, normal = make_paper(IMG), make_paper(NORMAL)
    reading_list = make_reading_list(user, f"{LINK} {IMG}", papers=[hostile, normal])
    make_note(user, normal, "An ordinary note.")
    client.force_login(user)
    text = client.get(reverse("highlights:list-export", args=[reading_list.pk])).content.decode()
    elements = rendered(text)
    assert_inert(elements)
    assert elements.headings == [f"My notes and highlights: {LINK} {IMG}", IMG, NORMAL]
    assert "An ordinary note." in text
