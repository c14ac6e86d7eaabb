"""Saved searches (issue 13, part 2): saving the list page's search, "N new since you last
looked" after later imports, opening, renaming, alerts on and off, and other members' searches
out of reach."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from alerts.models import SavedSearch
from alerts.queries import normalise_query
from papers.importing.pipeline import import_paths
from papers.models import TagKind
from tests.factories import make_paper, make_reading_list

pytestmark = pytest.mark.django_db


def write_jsonl(path, records: list[dict]):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def record(forum_id: str, title: str) -> dict:
    return {
        "forum_id": forum_id,
        "title": title,
        "abstract": f"{title}, studied at length.",
        "authors": ["Ada Lovelace"],
        "tags": ["ICLR 2024"],
    }


def saved_row(client, search: SavedSearch) -> str:
    html = client.get(reverse("alerts:searches")).content.decode()
    start = html.index(f'id="saved-search-{search.pk}"')
    return html[start : html.index("</li>", start)]


@pytest.fixture
def member(client, user):
    client.force_login(user)
    return user


def test_a_saved_search_counts_exactly_the_papers_imported_after_the_last_visit(
    client, member, tmp_path
):
    import_paths(
        [
            write_jsonl(
                tmp_path / "first.jsonl",
                [record("a1", "Diffusion models for proteins"), record("a2", "Graph networks")],
            )
        ]
    )
    response = client.post(
        reverse("alerts:save"), {"name": "Diffusion", "query": "q=diffusion&page=3"}
    )
    assert response.status_code == 302
    search = SavedSearch.objects.get(owner=member)
    assert search.query == "q=diffusion"  # the page is not part of a search
    assert "0 new since you last looked" in saved_row(client, search)

    import_paths(
        [
            write_jsonl(
                tmp_path / "second.jsonl",
                [
                    record("b1", "Score-based diffusion"),
                    record("b2", "Latent diffusion for audio"),
                    record("b3", "Reinforcement learning agents"),
                ],
            )
        ]
    )
    assert "2 new since you last looked" in saved_row(client, search)

    opened = client.post(reverse("alerts:open", args=[search.pk]))
    assert opened.status_code == 302
    assert opened["Location"] == reverse("papers:list") + "?q=diffusion"
    assert "0 new since you last looked" in saved_row(client, search)


def test_saving_from_the_list_page_with_htmx_answers_the_box_in_place(client, member):
    make_paper("Diffusion everywhere")
    page = client.get(reverse("papers:list"), {"q": "diffusion"}).content.decode()
    assert 'id="save-search-form"' in page and 'form="save-search-form"' in page
    assert 'name="query" value="q=diffusion"' in page

    response = client.post(
        reverse("alerts:save"),
        {"name": "  Diffusion   papers ", "query": "q=diffusion&typing=1&sort_for=diffusion"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "Saved as “" in response.content.decode()
    search = SavedSearch.objects.get(owner=member)
    assert (search.name, search.query) == ("Diffusion papers", "q=diffusion")


def test_a_visitor_sees_no_save_box_and_cannot_save(client, db):
    make_paper("Diffusion everywhere")
    page = client.get(reverse("papers:list"), {"q": "diffusion"}).content.decode()
    assert "save-search" not in page
    response = client.post(reverse("alerts:save"), {"name": "x", "query": "q=x"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not SavedSearch.objects.exists()


def test_a_duplicate_name_is_refused_and_nothing_typed_is_lost(client, member):
    SavedSearch.objects.create(owner=member, name="Diffusion", query="q=diffusion")
    response = client.post(reverse("alerts:save"), {"name": "DIFFUSION", "query": "q=score"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "You already have a saved search called “DIFFUSION”" in html
    assert 'value="DIFFUSION"' in html and 'value="q=score"' in html
    assert SavedSearch.objects.count() == 1


def test_facet_values_are_normalised_unknown_ones_dropped_and_named(client, member):
    make_paper("Tagged", tags=[("ICLR 2024", TagKind.VENUE)])
    response = client.post(
        reverse("alerts:save"),
        {
            "name": "Venue",
            "query": "venue=iclr-2024&venue=no-such-venue&author=abc&track=%3Cscript%3E"
            "&per_page=100&keyword_q=x&sort=newest&mine=lists&mine=bogus",
        },
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Unknown filter values left out:" in html and "no-such-venue" in html
    assert "&lt;script&gt;" in html and "<script>" not in html
    # The default sort, the page size and the find boxes are display, not part of the search.
    assert SavedSearch.objects.get().query == "venue=iclr-2024&mine=lists"


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("q=" + "a" * 10_000, "too long to save"),
        ("q=diff%00usion", "NUL character"),
        ("venue=%00", "NUL character"),
    ],
)
def test_hostile_queries_are_refused_with_a_clear_error(client, member, query, error):
    response = client.post(reverse("alerts:save"), {"name": "Bad", "query": query})
    assert response.status_code in (400, 200)
    assert error in response.content.decode()
    assert not SavedSearch.objects.exists()


def test_a_nul_sent_as_is_is_dropped_by_the_site_before_saving(client, member):
    # config.middleware drops raw NULs from every form; what is left is an ordinary search.
    client.post(reverse("alerts:save"), {"name": "Odd", "query": "q=diff\x00usion"})
    assert SavedSearch.objects.get().query == "q=diffusion"


def test_a_long_search_text_is_cut_as_the_list_page_cuts_it(user):
    normalised = normalise_query("q=" + "word " * 300, user)
    assert normalised.query.startswith("q=word+word") and len(normalised.query) < 260


def test_rename_toggle_and_delete(client, member):
    search = SavedSearch.objects.create(owner=member, name="Old", query="q=x")
    SavedSearch.objects.create(owner=member, name="Taken", query="q=y")

    assert (
        client.post(reverse("alerts:rename", args=[search.pk]), {"name": "New"}).status_code == 302
    )
    refused = client.post(reverse("alerts:rename", args=[search.pk]), {"name": "taken"})
    assert refused.status_code == 400 and "already have a saved search" in refused.content.decode()
    client.post(reverse("alerts:toggle-alert", args=[search.pk]))
    search.refresh_from_db()
    assert (search.name, search.alert) == ("New", False)

    assert client.get(reverse("alerts:delete", args=[search.pk])).status_code == 405
    client.post(reverse("alerts:delete", args=[search.pk]), {"confirmed": "yes"})
    assert not SavedSearch.objects.filter(pk=search.pk).exists()


def test_another_members_saved_searches_are_invisible_and_unchangeable(client, member, other_user):
    theirs = SavedSearch.objects.create(owner=other_user, name="Secret topic", query="q=secret")
    before = (theirs.name, theirs.alert, theirs.last_seen_at)
    assert "Secret topic" not in client.get(reverse("alerts:searches")).content.decode()
    for name in ("open", "rename", "toggle-alert", "delete"):
        url = reverse(f"alerts:{name}", args=[theirs.pk])
        assert client.post(url, {"name": "Mine now"}).status_code == 404
    assert client.get(reverse("alerts:open", args=[theirs.pk])).status_code == 404
    theirs.refresh_from_db()
    assert (theirs.name, theirs.alert, theirs.last_seen_at) == before


def test_the_saved_searches_page_needs_a_login(client, db):
    response = client.get(reverse("alerts:searches"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_mine_counts_the_owners_papers_only(client, member, other_user):
    mine = make_paper("Mine")
    theirs = make_paper("Theirs")
    make_reading_list(member, papers=[mine])
    make_reading_list(other_user, papers=[theirs])
    search = SavedSearch.objects.create(owner=member, name="My lists", query="mine=lists")
    SavedSearch.objects.filter(pk=search.pk).update(last_seen_at=mine.created_at.replace(year=2000))
    assert "1 new since you last looked" in saved_row(client, search)


def test_the_saved_searches_page_has_a_fixed_number_of_queries(
    client, member, django_assert_num_queries
):
    author_id = make_paper("Tagged", authors=["Ada Lovelace"], tags=[("ICLR 2024", TagKind.VENUE)])
    author_id = author_id.authors.get().pk
    SavedSearch.objects.create(owner=member, name="Text", query="q=topic")
    SavedSearch.objects.create(owner=member, name="Venue", query="venue=iclr-2024")
    client.get(reverse("alerts:searches"))  # the index is built on the first request
    # session, user, saved searches, every search's facet values resolved at once, the index's
    # change counter, digest state, the header's unread notifications
    with django_assert_num_queries(7):
        client.get(reverse("alerts:searches"))

    for n in range(5):
        SavedSearch.objects.create(owner=member, name=f"Text {n}", query=f"q=topic{n}")
        SavedSearch.objects.create(
            owner=member, name=f"Both {n}", query=f"venue=iclr-2024&author={author_id}&q=x{n}"
        )
    with django_assert_num_queries(7):
        html = client.get(reverse("alerts:searches")).content.decode()
    assert html.count("new since you last looked") == 12


def test_facet_values_resolved_together_stay_with_their_own_search(client, member):
    iclr = make_paper("At ICLR", tags=[("ICLR 2024", TagKind.VENUE)])
    make_paper("At NeurIPS", tags=[("NeurIPS 2023", TagKind.VENUE)])
    iclr_search = SavedSearch.objects.create(owner=member, name="I", query="venue=iclr-2024")
    both = SavedSearch.objects.create(
        owner=member, name="B", query="venue=iclr-2024&venue=neurips-2023"
    )
    SavedSearch.objects.filter(owner=member).update(last_seen_at=iclr.created_at.replace(year=2000))
    assert "1 new since" in saved_row(client, iclr_search)
    assert "2 new since" in saved_row(client, both)


@pytest.mark.parametrize(
    ("name", "error"),
    [("   ", "This field is required."), ("n" * 10_000, "at most 100 characters")],
)
def test_a_blank_or_huge_name_is_refused(client, member, name, error):
    response = client.post(reverse("alerts:save"), {"name": name, "query": "q=x"})
    assert response.status_code == 400 and error in response.content.decode()
    assert not SavedSearch.objects.exists()


def test_a_search_is_described_in_words(user):
    search = SavedSearch(owner=user, name="x", query="q=diffusion&venue=iclr-2024&sort=title")
    assert search.description == "“diffusion”; venue: iclr-2024; sorted by title"
    assert SavedSearch(owner=user, name="y", query="").description == "all papers"


def test_more_facet_values_than_one_listing_takes_are_resolved_search_by_search(client, member):
    paper = make_paper("At ICLR", tags=[("ICLR 2024", TagKind.VENUE)])
    real = SavedSearch.objects.create(owner=member, name="Real", query="venue=iclr-2024")
    for n in range(25):  # together past the list page's 20 values per facet
        SavedSearch.objects.create(owner=member, name=f"V{n}", query=f"venue=venue-{n}")
    SavedSearch.objects.filter(owner=member).update(
        last_seen_at=paper.created_at.replace(year=2000)
    )
    assert "1 new since" in saved_row(client, real)
