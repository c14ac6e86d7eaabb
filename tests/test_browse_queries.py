"""Query budgets: the list page stays within 11 queries, the paper page within 5, at any size.

The search index answers the search, the filters and the counts; the database is asked for
what the page shows. Each budget is for a steady-state request: the fixture builds the test's
search index first, as a running server has.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Note, ReadingList, ReadingListItem
from papers.models import Author, TagKind
from papers.search.sync import current_searcher
from papers.views import PAGE_SIZE
from tests.factories import make_paper

VENUES = ["ICLR 2024", "NeurIPS 2023"]
TRACKS = ["Poster", "Spotlight", "Oral"]


@pytest.fixture
def many_papers(db):
    papers = []
    for n in range(120):
        papers.append(
            make_paper(
                f"Graph learning study {n}",
                abstract=f"We study graph networks, variant {n}, with $x_{n}$ and \\emph{{care}}.",
                authors=[f"Author {n % 7}", f"Author {7 + n % 5}", f"Author {20 + n}"],
                tags=[
                    (VENUES[n % 2], TagKind.VENUE),
                    (TRACKS[n % 3], TagKind.TRACK),
                    (f"lab {n % 4}", TagKind.LAB),
                ],
            )
        )
    # Built now, as a running server has it: budgets count a steady-state request.
    current_searcher()
    return papers


def shown_papers(response, key: str = "papers") -> list:
    """The papers a page lists, after checking that it answered 200 and links each of them."""
    assert response.status_code == 200
    content = response.content.decode()
    papers = list(response.context[key])
    assert all(paper.get_absolute_url() in content for paper in papers)
    return papers


def everything_selected(extra: str = "") -> str:
    authors = Author.objects.order_by("pk").values_list("pk", flat=True)[:3]
    author_part = "".join(f"&author={pk}" for pk in authors)
    return (
        "?q=graph&sort=title&venue=iclr-2024&venue=neurips-2023&track=poster&track=oral"
        f"&tag=lab-0&tag=lab-2{author_part}&author_q=author&per_page=100{extra}"
    )


@pytest.mark.parametrize("per_page", [10, 25, 50, 100])
def test_unfiltered_list_page_budget(client, many_papers, django_assert_max_num_queries, per_page):
    # search index up to date?, page rows, prefetch the first authorships+authors (and how
    # many more), prefetch paper tags+tags, tag facet labels, author facet names.
    with django_assert_max_num_queries(6):
        response = client.get(reverse("papers:list"), {"per_page": per_page})
    assert len(shown_papers(response)) == per_page


def test_anonymous_list_page_with_every_facet_search_and_sort(
    client, many_papers, django_assert_max_num_queries
):
    url = reverse("papers:list") + everything_selected()
    # resolve selected tags and authors (one UNION), authors matching the author box, search
    # index up to date?, page rows, prefetch the first authorships, prefetch tags, tag facet
    # labels, author facet names.
    with django_assert_max_num_queries(8):
        response = client.get(url)
    assert shown_papers(response)
    assert response.context["total"] > 0


def test_logged_in_list_page_with_every_facet_and_mine(
    client, user, many_papers, django_assert_max_num_queries
):
    reading_list = ReadingList.objects.create(owner=user, name="Queue")
    for position, paper in enumerate(many_papers[:40]):
        ReadingListItem.objects.create(reading_list=reading_list, paper=paper, position=position)
    for paper in many_papers[30:60]:
        Note.objects.create(owner=user, paper=paper, body="note")
    client.force_login(user)
    url = reverse("papers:list") + everything_selected("&mine=lists&mine=notes")
    # session, user, resolve selected tags and authors (one UNION), my lists' and notes'
    # papers (one UNION), authors matching the author box, search index up to date?, page
    # rows, prefetch the first authorships, prefetch tags, tag facet labels, author facet names,
    # the header's unread notifications, the triage controls' lists and items (triage_tags).
    with django_assert_max_num_queries(14):
        response = client.get(url)
    # Values of one facet are OR-ed: papers 0-39 are in the list, 30-59 have a note.
    assert {paper.pk for paper in shown_papers(response)} <= {p.pk for p in many_papers[:60]}
    assert response.context["total"] > 0
    mine = next(f for f in response.context["facets"] if f.param == "mine")
    assert all(value.selected for value in mine.values)


def test_list_page_budget_does_not_grow_with_page_size(
    client, many_papers, django_assert_max_num_queries
):
    for per_page in (10, 100):
        url = reverse("papers:list") + everything_selected(f"&per_page={per_page}")
        with django_assert_max_num_queries(8):
            response = client.get(url)
        assert len(shown_papers(response)) == min(per_page, response.context["total"])


def test_paper_page_budget_for_anonymous_visitor(
    client, many_papers, django_assert_max_num_queries
):
    paper = many_papers[0]
    # paper, prefetch authorships+authors, prefetch paper tags+tags, the reviews it may
    # read, search index up to date?, similar papers' rows (the annotations panel adds its
    # own queries only for logged-in users).
    with django_assert_max_num_queries(6):
        response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert paper.title in content and "Author 20" in content


def test_author_and_tag_pages_have_a_fixed_budget(
    client, many_papers, django_assert_max_num_queries
):
    author = Author.objects.get(name="Author 0")
    # author, count, page rows, prefetch the first authorships, prefetch tags, co-authors.
    with django_assert_max_num_queries(6):
        response = client.get(author.get_absolute_url())
    assert set(shown_papers(response, "page")) == set(author.papers.all())
    tag = many_papers[0].tags.get(kind=TagKind.TRACK)
    # tag, count, page rows, prefetch the first authorships, prefetch tags.
    with django_assert_max_num_queries(5):
        response = client.get(tag.get_absolute_url())
    papers = shown_papers(response, "page")
    assert set(papers) <= set(tag.papers.all())
    assert len(papers) == min(PAGE_SIZE, tag.papers.count())
