"""Pages listing papers name the first LISTED_AUTHORS authors and count the others; the paper's
own page names them all. The database reads a bounded number of authorships per paper."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.models import Visibility
from papers.listing import LISTED_AUTHORS, listed_papers, with_listing
from papers.models import Author, Paper, Tag, TagKind
from papers.search.sync import current_searcher
from tests.factories import make_paper, make_reading_list, make_user

NAMES = [f"Author {n:02}" for n in range(25)]
AUTHOR_LINK = re.compile(r'<a href="/authors/\d+/">(Author \d\d)</a>')


def _authors_paragraph(html: str, paper) -> str:
    """The `<p class="authors">` under the paper's title (in a list, or on its own page)."""
    title = html.index(f">{paper.display_title}</")
    start = html.index('<p class="authors">', title)
    return html[start : html.index("</p>", start)]


def _names_shown(html: str, paper) -> list[str]:
    return AUTHOR_LINK.findall(_authors_paragraph(html, paper))


def _more_link(html: str, paper) -> str:
    """The "… and K more" link after the names, as "href text", or ""."""
    paragraph = _authors_paragraph(html, paper)
    match = re.search(r'<a class="more-authors" href="([^"]+)">(.*?)</a>', paragraph)
    return "" if match is None else f"{match[1]} {re.sub('<[^>]+>', '', match[2])}"


@pytest.fixture
def long_paper(db):
    return make_paper(
        "A paper by twenty-five people", authors=NAMES, tags=[("Workshop", TagKind.TRACK)]
    )


def _listing_urls(client, user, paper) -> dict[str, str]:
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    shared = make_reading_list(
        make_user("carol"), "Shared", papers=[paper], visibility=Visibility.SHARED
    )
    client.force_login(user)
    return {
        "list page": reverse("papers:list"),
        "search results": reverse("papers:list") + "?q=people",
        "author page": Author.objects.get(name="Author 00").get_absolute_url(),
        "tag page": Tag.objects.get(name="Workshop").get_absolute_url(),
        "reading-list page": reading_list.get_absolute_url(),
        "shared list of someone else": shared.get_absolute_url(),
    }


def test_listed_authors_limit_is_ten():
    assert LISTED_AUTHORS == 10


@pytest.mark.parametrize(
    "page",
    [
        "list page",
        "search results",
        "author page",
        "tag page",
        "reading-list page",
        "shared list of someone else",
    ],
)
def test_listings_name_the_first_ten_authors_and_link_the_rest(client, user, long_paper, page):
    html = client.get(_listing_urls(client, user, long_paper)[page]).content.decode()
    assert _names_shown(html, long_paper) == NAMES[:10]
    assert _more_link(html, long_paper) == f"{long_paper.get_absolute_url()} … and 15 more authors"


def test_paper_page_names_every_author(client, long_paper):
    html = client.get(long_paper.get_absolute_url()).content.decode()
    assert _names_shown(html, long_paper) == NAMES
    assert "more-authors" not in html


def test_ten_authors_fit_without_a_more_link(client, db):
    paper = make_paper("Ten people", authors=NAMES[:10])
    html = client.get(reverse("papers:list")).content.decode()
    assert _names_shown(html, paper) == NAMES[:10]
    assert _more_link(html, paper) == ""


def test_eleven_authors_show_one_more_author(client, db):
    paper = make_paper("Eleven people", authors=NAMES[:11])
    html = client.get(reverse("papers:list")).content.decode()
    assert _names_shown(html, paper) == NAMES[:10]
    assert _more_link(html, paper) == f"{paper.get_absolute_url()} … and 1 more author"


def test_the_count_stays_exact_when_a_deleted_author_leaves_gaps(client, long_paper):
    # Deleting an author drops their authorships without renumbering: positions 0 and 3 are
    # gone, the first listed author is at position 1, and positions 10-24 are still not shown.
    Author.objects.filter(name__in=["Author 00", "Author 03"]).delete()
    html = client.get(reverse("papers:list")).content.decode()
    assert _names_shown(html, long_paper) == [NAMES[n] for n in (1, 2, 4, 5, 6, 7, 8, 9)]
    assert _more_link(html, long_paper).endswith("… and 15 more authors")


def _queries_per_page(client, user, authors_per_paper: int) -> dict[str, int]:
    """Queries of each listing page over 20 papers with `authors_per_paper` authors each, all
    under one venue, one track, one shared first author and one reading list."""
    group = f"group {authors_per_paper}"
    papers = [
        make_paper(
            f"Paper {n} of {group}",
            authors=[f"Lead {group}"]
            + [f"Person {n}.{k} {group}" for k in range(1, authors_per_paper)],
            tags=[(f"Venue {group}", TagKind.VENUE), (f"Track {group}", TagKind.TRACK)],
        )
        for n in range(20)
    ]
    reading_list = make_reading_list(user, group, papers=papers)
    venue = Tag.objects.get(name=f"Venue {group}")
    urls = {
        "list page": f"{reverse('papers:list')}?venue={venue.slug}",
        "search results": f"{reverse('papers:list')}?q=paper&venue={venue.slug}",
        "author page": Author.objects.get(name=f"Lead {group}").get_absolute_url(),
        "tag page": Tag.objects.get(name=f"Track {group}").get_absolute_url(),
        "reading-list page": reading_list.get_absolute_url(),
    }
    client.force_login(user)
    current_searcher()  # the search index catches up now, not inside a measured request
    counts = {}
    for page, url in urls.items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        assert response.content.decode().count('<p class="authors">') == 20, page
        counts[page] = len(queries)
    return counts


def test_listing_queries_do_not_depend_on_the_number_of_authors(client, user):
    assert _queries_per_page(client, user, 25) == _queries_per_page(client, user, 2)


def test_listings_load_only_the_listed_authorships(long_paper):
    [paper] = with_listing(list(Paper.objects.for_browsing()))
    assert [author.name for author in paper.listed_authors] == NAMES[:LISTED_AUTHORS]
    assert paper.more_authors == 15


def test_a_page_of_papers_is_read_in_its_order_in_one_query(db, django_assert_num_queries):
    first = make_paper("First", authors=["Ann", "Bo"], tags=[("ICLR 2024", TagKind.VENUE)])
    second = make_paper("Second", authors=["Cy"])
    third = make_paper("Third")
    gone = third.pk
    third.delete()  # deleted since the search index listed it
    with django_assert_num_queries(1):
        papers = listed_papers([second.pk, gone, first.pk, second.pk], excerpt=4)
    assert [paper.title for paper in papers] == ["Second", "First"]
    assert [author.name for author in papers[1].listed_authors] == ["Ann", "Bo"]
    assert [tag.name for tag in papers[1].listed_tags] == ["ICLR 2024"]
    assert papers[0].listed_tags == [] and papers[0].more_authors is None
    assert papers[1].abstract_start == first.abstract[:4]
    # Pages of other sizes are read the same way.
    with django_assert_num_queries(1):
        assert [paper.title for paper in listed_papers([first.pk])] == ["First"]
    with django_assert_num_queries(1):
        assert [paper.title for paper in listed_papers([second.pk])] == ["Second"]
    assert listed_papers([]) == []


def test_listed_tags_come_venue_track_area_then_lab_tags_by_name_without_keywords(db):
    paper = make_paper(
        "Tagged",
        tags=[
            ("zeta", TagKind.LAB),
            ("Alpha", TagKind.LAB),
            ("Vision", TagKind.AREA),
            ("Oral", TagKind.TRACK),
            ("NeurIPS 2023", TagKind.VENUE),
            ("diffusion", TagKind.KEYWORD),
        ],
    )
    [listed] = listed_papers([paper.pk])
    assert [(tag.kind, tag.name) for tag in listed.listed_tags] == [
        ("venue", "NeurIPS 2023"),
        ("track", "Oral"),
        ("area", "Vision"),
        ("lab", "Alpha"),
        ("lab", "zeta"),
    ]
    [without_tags] = listed_papers([paper.pk], tags=False)
    assert not hasattr(without_tags, "listed_tags")
    assert [author.name for author in without_tags.listed_authors] == [
        author.name for author in listed.listed_authors
    ]
