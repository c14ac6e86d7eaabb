"""Invalid URL parameters on the browsing pages give a sensible page, never a 500."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from papers.models import TagKind
from tests.factories import make_paper


@pytest.fixture
def thirty_papers(db):
    return [
        make_paper(f"Paper {n:02d}", authors=["Ann Alpha"], tags=[("Poster", TagKind.TRACK)])
        for n in range(30)
    ]


def get_list(client, query: str):
    response = client.get(reverse("papers:list") + query)
    assert response.status_code == 200
    return response


@pytest.mark.parametrize("page", ["abc", "", "1.5", "%00", "١"])
def test_unreadable_page_number_shows_the_first_page(client, thirty_papers, page):
    response = get_list(client, f"?page={page}")
    assert response.context["page"].number == 1


@pytest.mark.parametrize("page", ["99999", "3", "0", "-1", "9" * 40])
def test_page_number_out_of_range_shows_the_last_page(client, thirty_papers, page):
    response = get_list(client, f"?page={page}")
    assert response.context["page"].number == 2  # 30 papers, 25 a page
    assert len(response.context["papers"]) == 5


@pytest.mark.parametrize("per_page", ["7", "1000", "abc", "", "-25", "25.0"])
def test_unsupported_page_size_falls_back_to_the_default(client, thirty_papers, per_page):
    response = get_list(client, f"?per_page={per_page}")
    assert response.context["options"].per_page == 25
    assert len(response.context["papers"]) == 25


@pytest.mark.parametrize("per_page", ["10", "50", "100"])
def test_supported_page_sizes_are_used(client, thirty_papers, per_page):
    response = get_list(client, f"?per_page={per_page}")
    assert len(response.context["papers"]) == min(int(per_page), 30)


@pytest.mark.parametrize("sort", ["bogus", "", "-title", "relevance"])
def test_unknown_sort_without_query_falls_back_to_newest(client, thirty_papers, sort):
    response = get_list(client, f"?sort={sort}")
    assert response.context["options"].sort == "newest"


@pytest.mark.parametrize(
    "query",
    [
        "?venue=no-such-venue",
        "?track=<script>",
        "?tag=" + "x" * 500,
        "?author=abc",
        "?author=999999",
        "?author=-3",
        "?author=" + "9" * 30,
        "?venue=poster",  # a track's slug is not a venue
    ],
)
def test_unknown_facet_values_are_ignored_with_a_message(client, thirty_papers, query):
    response = get_list(client, query)
    assert response.context["total"] == 30
    assert response.context["ignored"]
    assert b"Ignored unknown filter value" in response.content
    assert b"<script>" not in response.content.split(b"<main")[1]


def test_known_values_still_apply_next_to_unknown_ones(client, thirty_papers, db):
    make_paper("Oral paper", tags=[("Oral", TagKind.TRACK)])
    response = get_list(client, "?track=oral&track=bogus")
    assert [p.title for p in response.context["papers"]] == ["Oral paper"]
    assert response.context["ignored"] == ["track “bogus”"]


def test_mine_is_ignored_for_anonymous_visitors(client, thirty_papers):
    response = get_list(client, "?mine=lists&mine=notes&mine=bogus")
    assert response.context["total"] == 30


def test_unknown_mine_value_is_ignored_for_members(client, user, thirty_papers):
    client.force_login(user)
    response = get_list(client, "?mine=bogus")
    assert response.context["total"] == 30


def test_overlong_search_and_author_box_do_not_fail(client, thirty_papers):
    response = get_list(client, "?q=" + "paper%20" * 400 + "&author_q=" + "a" * 5000)
    assert response.status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/papers/999999/",
        "/authors/999999/",
        "/tags/venue/no-such-tag/",
        "/tags/nonsense-kind/poster/",
    ],
)
def test_missing_objects_answer_404(client, db, url):
    assert client.get(url).status_code == 404


def test_author_and_tag_pages_tolerate_bad_page_numbers(client, thirty_papers):
    author = thirty_papers[0].authors.get()
    tag = thirty_papers[0].tags.get()
    for url in (author.get_absolute_url(), tag.get_absolute_url()):
        assert client.get(url, {"page": "abc"}).status_code == 200
        assert client.get(url, {"page": "99999"}).context["page"].number == 2


def test_pages_link_to_the_first_and_last_page(client, thirty_papers):
    def links(query):
        nav = get_list(client, query).content.decode().split('class="pagination"')[1]
        found = re.findall(r'<a (?:rel="\w+" )?href="\?([^"]*)">(.*?)</a>', nav.split("</nav>")[0])
        # The arrows are hidden from screen readers, which would read out their names.
        return [(strip_tags(text), parse_qs(unescape(href))) for href, text in found]

    page_3 = get_list(client, "?per_page=10&page=3").content.decode()
    assert '<span aria-hidden="true">«</span> First' in page_3
    assert links("?per_page=10") == [
        ("Next →", {"per_page": ["10"], "page": ["2"]}),
        ("Last »", {"per_page": ["10"], "page": ["3"]}),
    ]
    # Page 2 of 3: Previous is the first page and Next the last.
    assert [text for text, _ in links("?per_page=10&page=2")] == ["← Previous", "Next →"]
    assert links("?per_page=10&page=3") == [
        ("« First", {"per_page": ["10"]}),
        ("← Previous", {"per_page": ["10"], "page": ["2"]}),
    ]
