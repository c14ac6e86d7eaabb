"""The list page's own form, submitted as a browser would: every field it sends, nothing added.

A test that built `/?q=...` by hand once hid that a search typed into the box came back in
import order: the form also sends the sort menu's preset (`sort=newest`).
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.factories import make_paper

pytestmark = pytest.mark.django_db


class _FormFields(HTMLParser):
    """The fields a browser submits for the form with the given id (GET, default values)."""

    def __init__(self, form_id: str):
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.action = ""
        self.fields: dict[str, str] = {}
        self._select: str | None = None
        self._first_option: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == self.form_id:
            self.inside, self.action = True, attrs.get("action", "")
        if not self.inside:
            return
        if tag == "input" and attrs.get("name"):
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            if kind not in ("submit", "button"):
                self.fields[attrs["name"]] = attrs.get("value", "")
        elif tag == "select":
            self._select, self._first_option = attrs.get("name"), None
        elif tag == "option" and self._select:
            value = attrs.get("value", "")
            if self._first_option is None:
                self._first_option = value
                self.fields.setdefault(self._select, value)
            if "selected" in attrs:
                self.fields[self._select] = value

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "form" and self.inside:
            self.inside = False


def browse_form(html: str) -> tuple[str, dict[str, str]]:
    parser = _FormFields("browse")
    parser.feed(html)
    return parser.action, parser.fields


def submit(client, page_html: str, **changes) -> list[str]:
    action, fields = browse_form(page_html)
    response = client.get(action, {**fields, **changes})
    assert response.status_code == 200
    return response


def titles(response) -> list[str]:
    return [paper.title for paper in response.context["papers"]]


@pytest.fixture
def corpus(db):
    # Imported in this order: "newest" lists them backwards, relevance puts the title hit first.
    make_paper("Diffusion models for planning", abstract="Planning with diffusion.")
    make_paper("Aardvark behaviour", abstract="A note on diffusion, once.")
    make_paper("Zebra crossings", abstract="Nothing about the topic.")


def test_a_search_typed_into_the_box_is_ranked_by_relevance(client, corpus):
    start = client.get(reverse("papers:list"))
    action, fields = browse_form(start.content.decode())
    assert fields["sort"] == "newest"  # the unsearched page's sort menu
    response = submit(client, start.content.decode(), q="diffusion")
    assert response.context["options"].sort == "relevance"
    assert titles(response) == ["Diffusion models for planning", "Aardvark behaviour"]


def test_a_sort_picked_after_searching_is_kept(client, corpus):
    searched = submit(client, client.get(reverse("papers:list")).content.decode(), q="diffusion")
    resorted = submit(client, searched.content.decode(), sort="title")
    assert resorted.context["options"].sort == "title"
    assert titles(resorted) == ["Aardvark behaviour", "Diffusion models for planning"]
    # Submitted again (a page size changed, say), the form keeps the chosen sort.
    again = submit(client, resorted.content.decode(), per_page="10")
    assert again.context["options"].sort == "title"


def test_a_new_search_after_picking_a_sort_is_ranked_by_relevance_again(client, corpus):
    searched = submit(client, client.get(reverse("papers:list")).content.decode(), q="diffusion")
    resorted = submit(client, searched.content.decode(), sort="title")
    again = submit(client, resorted.content.decode(), q="planning diffusion")
    assert again.context["options"].sort == "relevance"


def test_a_shared_link_naming_a_sort_keeps_it(client, corpus):
    response = client.get(reverse("papers:list"), {"q": "diffusion", "sort": "title"})
    assert response.context["options"].sort == "title"
