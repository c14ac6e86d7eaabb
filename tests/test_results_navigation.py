"""From a list page's result to the paper and back: "back to results" and previous/next keep
the list's search, facets, sort and page size; the links are the ones the list page renders."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.models import TagKind
from tests.factories import make_paper, make_reading_list

RESULT_LINK = re.compile(r'<h2 class="paper-title"><a href="([^"]+)"')


def result_links(client, params: dict) -> list[str]:
    response = client.get(reverse("papers:list"), params)
    assert response.status_code == 200
    return [unescape(href) for href in RESULT_LINK.findall(response.content.decode())]


@pytest.fixture
def alphabet(db):
    """Seven oral papers titled A to G about graphs, one poster about graphs, one oral about
    something else."""
    papers = {
        letter: make_paper(
            f"{letter} graph paper",
            abstract=f"Graphs and networks, part {letter}.",
            tags=[("Oral", TagKind.TRACK)],
        )
        for letter in "DBFAGCE"
    }
    papers["poster"] = make_paper(
        "H graph poster", abstract="Graphs again.", tags=[("Poster", TagKind.TRACK)]
    )
    papers["other"] = make_paper(
        "I unrelated", abstract="Nothing in common.", tags=[("Oral", TagKind.TRACK)]
    )
    return papers


LIST = {"q": "graph", "track": "oral", "sort": "title", "sort_for": "graph", "per_page": "25"}


def test_a_result_link_opens_the_paper_with_its_place_in_the_results(client, alphabet):
    links = result_links(client, LIST)
    assert len(links) == 7  # the poster and the unrelated paper are filtered out

    response = client.get(links[2])  # "C graph paper", third by title

    assert response.status_code == 200
    assert response.context["paper"] == alphabet["C"]
    navigation = response.context["navigation"]
    assert (navigation.rank, navigation.total) == (3, 7)
    assert navigation.previous.paper == alphabet["B"]
    assert navigation.next.paper == alphabet["D"]
    content = response.content.decode()
    assert "Result 3 of 7" in content
    assert 'rel="prev"' in content and 'rel="next"' in content


def test_next_and_previous_walk_the_same_results(client, alphabet):
    first = client.get(result_links(client, LIST)[0])
    assert first.context["navigation"].previous is None  # the first result has none

    walked = [first.context["paper"]]
    response = first
    while response.context["navigation"].next:
        response = client.get(response.context["navigation"].next.url)
        assert response.status_code == 200
        walked.append(response.context["paper"])

    assert [paper.title for paper in walked] == [f"{letter} graph paper" for letter in "ABCDEFG"]
    assert response.context["navigation"].rank == 7
    back = client.get(response.context["navigation"].previous.url)
    assert back.context["paper"] == alphabet["F"]


def test_back_to_results_returns_to_the_page_holding_the_paper_with_the_list_state(
    client, alphabet
):
    params = {**LIST, "per_page": "25"}
    links = result_links(client, params)
    navigation = client.get(links[4]).context["navigation"]

    assert navigation.back_url.startswith(reverse("papers:list") + "?")
    assert navigation.back_url.endswith(f"#paper-{alphabet['E'].pk}")
    back = client.get(navigation.back_url.split("#")[0])
    assert back.status_code == 200
    assert [paper.title for paper in back.context["papers"]][4] == "E graph paper"
    assert back.context["options"].q == "graph"
    assert back.context["options"].sort == "title"


def test_back_to_results_names_the_page_past_the_first(client, db):
    for n in range(12):
        make_paper(f"Paper {n:02d}", abstract="Shared words about kernels.")
    links = result_links(client, {"sort": "title", "per_page": "10", "page": "2"})
    assert len(links) == 2

    response = client.get(links[0])

    navigation = response.context["navigation"]
    assert navigation.rank == 11
    assert "page=2" in navigation.back_url
    assert navigation.previous.paper.title == "Paper 09"  # across the page boundary
    assert navigation.next.paper.title == "Paper 11"


def test_a_stale_rank_keeps_the_way_back_but_offers_no_neighbours(client, alphabet):
    link = result_links(client, LIST)[2]
    stale = link.replace("at=3", "at=6")

    response = client.get(stale)

    assert response.status_code == 200
    navigation = response.context["navigation"]
    assert navigation.previous is None and navigation.next is None
    assert navigation.back_url.endswith(f"#paper-{alphabet['C'].pk}")


@pytest.mark.parametrize(
    "query",
    [
        "at=1",  # no list
        "from=q%3Dgraph",  # no rank
        "from=q%3Dgraph&at=abc",
        "from=q%3Dgraph&at=0",
        "from=q%3Dgraph&at=-1",
        "from=q%3Dgraph&at=99999999999",
        "from=q%3Dgraph&at=%D9%A3",  # an Arabic-Indic digit is not a rank
        "from=" + "x" * 5000 + "&at=1",
    ],
)
def test_a_mangled_results_link_shows_the_paper_without_navigation(client, alphabet, query):
    response = client.get(f"{alphabet['A'].get_absolute_url()}?{query}")

    assert response.status_code == 200
    assert response.context["navigation"] is None
    assert "Back to results" not in response.content.decode()


def test_hostile_list_state_is_validated_like_the_list_page(client, alphabet):
    url = alphabet["A"].get_absolute_url()
    response = client.get(url, {"from": "track=nope&sort=<script>&per_page=-5&q=graph", "at": "1"})

    assert response.status_code == 200
    assert "<script>" not in response.content.decode().split("<main", 1)[1].split("</main>")[0]


def test_the_page_without_a_results_link_shows_no_navigation(client, alphabet):
    response = client.get(alphabet["A"].get_absolute_url())
    assert response.context["navigation"] is None


def test_navigation_costs_a_query_for_the_neighbours_titles_and_one_per_selected_facet(
    client, alphabet
):
    link = result_links(client, LIST)[2]
    plain = alphabet["C"].get_absolute_url()
    client.get(plain)  # the search index is opened once per process, not per request

    with CaptureQueriesContext(connection) as plain_queries:
        assert client.get(plain).status_code == 200
    with CaptureQueriesContext(connection) as walked_queries:
        assert client.get(link).status_code == 200

    # The list selects a track: resolving its slug to the tag is the list page's query too.
    assert len(walked_queries) == len(plain_queries) + 2


def test_a_members_mine_facet_is_walked_with_their_own_lists_only(client, user, other_user):
    mine = [make_paper(f"Mine {n}") for n in range(3)]
    theirs = make_paper("Theirs")
    make_reading_list(user, "Mine", papers=mine)
    make_reading_list(other_user, "Theirs", papers=[theirs, mine[0]])
    client.force_login(user)

    links = result_links(client, {"mine": "lists", "sort": "title"})
    assert len(links) == 3
    response = client.get(links[2])

    navigation = response.context["navigation"]
    assert navigation.total == 3
    assert navigation.previous.paper == mine[1]
    assert navigation.next is None
