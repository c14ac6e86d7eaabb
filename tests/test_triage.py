"""Triage from the results: Save, add to a list, reading status and lab tags on each result of
the list, author and tag pages, one at a time or for the selected results; htmx answers with
the result's block, a plain form POST redirects back to the page it came from."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from annotations.models import ReadingList, ReadingListItem, ReadingStatus, Visibility
from papers.models import PaperTag, TagKind
from papers.search.sync import current_searcher
from tests.factories import make_paper, make_reading_list, make_tag

HTMX = {"HTTP_HX_REQUEST": "true"}
LIST_URL = "/?q=graph&sort=title&per_page=25"


@pytest.fixture
def papers(db):
    made = [make_paper(f"Graph paper {n}", authors=[f"Author {n}"]) for n in range(3)]
    current_searcher()  # the list page's index, built as a running server has it
    return made


@pytest.fixture
def member(client, user):
    client.force_login(user)
    return user


def _url(name: str, paper) -> str:
    return reverse(f"annotations:triage-{name}", args=[paper.pk])


def _message(response) -> str:
    return " ".join(str(message) for message in get_messages(response.wsgi_request))


def _items(user) -> set[tuple[str, int, str]]:
    return set(
        ReadingListItem.objects.filter(reading_list__owner=user).values_list(
            "reading_list__name", "paper_id", "status"
        )
    )


# Save and unsave


def test_save_with_htmx_makes_a_private_default_list_and_answers_with_the_block(
    client, member, papers
):
    response = client.post(_url("save", papers[0]), {"next": LIST_URL}, **HTMX)

    saved = ReadingList.objects.get(owner=member)
    assert (saved.name, saved.is_default, saved.visibility) == ("Saved", True, Visibility.PRIVATE)
    assert _items(member) == {("Saved", papers[0].pk, ReadingStatus.TO_READ)}
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<div class="triage is-saved" id="triage-{papers[0].pk}"')
    assert "Saved ✓" in html and "in Saved" in html
    assert 'role="status" aria-live="polite">Saved to “Saved”' in html
    assert "<html" not in html  # the block alone, never a page


def test_save_without_javascript_redirects_back_keeping_the_query_string(client, member, papers):
    response = client.post(_url("save", papers[1]), {"next": LIST_URL})

    assert response.status_code == 302 and response["Location"] == LIST_URL
    assert _message(response) == "Saved to “Saved”: “Graph paper 1”."
    assert _items(member) == {("Saved", papers[1].pk, ReadingStatus.TO_READ)}


@pytest.mark.parametrize(
    "next_url",
    # Off-site, or not a URL at all: a bare word once reached redirect() as a URL name (500).
    ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "x", "0", ":", "'"],
)
def test_an_off_site_next_is_refused(client, member, papers, next_url):
    response = client.post(_url("save", papers[0]), {"next": next_url})

    assert response["Location"] == reverse("papers:list")


def test_save_goes_to_the_default_list_when_there_is_one(client, member, papers):
    make_reading_list(member, "Queue")
    inbox = make_reading_list(member, "Inbox", is_default=True)

    client.post(_url("save", papers[0]), **HTMX)
    client.post(_url("save", papers[0]), **HTMX)  # twice: still once

    assert _items(member) == {("Inbox", papers[0].pk, ReadingStatus.TO_READ)}
    assert not ReadingList.objects.filter(name="Saved").exists()
    assert inbox.items.count() == 1


def test_without_a_default_an_existing_saved_list_becomes_it(client, member, papers):
    make_reading_list(member, "Queue")
    mine = make_reading_list(member, "saved")

    client.post(_url("save", papers[0]), **HTMX)

    mine.refresh_from_db()
    assert mine.is_default and ReadingList.objects.filter(owner=member).count() == 2
    assert _items(member) == {("saved", papers[0].pk, ReadingStatus.TO_READ)}


def test_with_lists_but_no_default_a_saved_list_is_made(client, member, papers):
    make_reading_list(member, "Queue", papers=[papers[0]])

    client.post(_url("save", papers[0]), **HTMX)

    assert ReadingList.objects.get(owner=member, is_default=True).name == "Saved"
    assert _items(member) == {
        ("Queue", papers[0].pk, ReadingStatus.TO_READ),
        ("Saved", papers[0].pk, ReadingStatus.TO_READ),
    }


def test_unsave_takes_the_paper_out_of_the_default_list_only(client, member, papers):
    make_reading_list(member, "Queue", papers=[papers[0]])
    make_reading_list(member, "Saved", papers=[papers[0], papers[1]], is_default=True)

    response = client.post(_url("unsave", papers[0]), {"next": LIST_URL})

    assert response["Location"] == LIST_URL
    assert _message(response) == "Removed from “Saved”: “Graph paper 0”."
    assert _items(member) == {
        ("Queue", papers[0].pk, ReadingStatus.TO_READ),
        ("Saved", papers[1].pk, ReadingStatus.TO_READ),
    }
    html = client.post(_url("unsave", papers[1]), **HTMX).content.decode()
    assert "data-triage-save" in html and "Saved ✓" not in html


# Add to a list


def test_add_to_list_with_htmx(client, member, papers):
    queue = make_reading_list(member, "Queue")
    field = f"p{papers[2].pk}-reading_list"

    response = client.post(_url("list", papers[2]), {field: queue.pk}, **HTMX)

    assert _items(member) == {("Queue", papers[2].pk, ReadingStatus.TO_READ)}
    html = response.content.decode()
    assert "Added to “Queue”" in html
    assert f'<option value="{queue.pk}" disabled>✓ Queue</option>' in html
    assert "In Queue" in html  # the state label


def test_add_to_list_without_javascript(client, member, papers):
    queue = make_reading_list(member, "Queue")

    response = client.post(
        _url("list", papers[2]), {f"p{papers[2].pk}-reading_list": queue.pk, "next": LIST_URL}
    )

    assert response["Location"] == LIST_URL
    assert _items(member) == {("Queue", papers[2].pk, ReadingStatus.TO_READ)}


def test_another_members_list_is_never_writable(client, member, other_user, papers):
    theirs = make_reading_list(other_user, "Bob's", visibility=Visibility.SHARED)
    field = f"p{papers[0].pk}-reading_list"

    htmx = client.post(_url("list", papers[0]), {field: theirs.pk}, **HTMX)
    plain = client.post(_url("list", papers[0]), {field: theirs.pk, "next": LIST_URL})
    bulk = client.post(
        reverse("annotations:triage-bulk"),
        {"paper": [papers[0].pk], "action": "list", "reading_list": theirs.pk},
        **HTMX,
    )

    assert htmx.status_code == 400 and "not one of yours" in htmx.content.decode()
    assert plain["Location"] == LIST_URL and "not one of yours" in _message(plain)
    assert bulk.status_code == 400 and "not one of yours" in bulk.content.decode()
    assert not ReadingListItem.objects.exists()


def test_unknown_paper_is_a_404(client, member):
    assert client.post(reverse("annotations:triage-save", args=[999999])).status_code == 404
    assert not ReadingList.objects.exists()


# Reading status


def test_status_saves_the_paper_first_and_sets_it(client, member, papers):
    field = f"p{papers[0].pk}-status"

    response = client.post(_url("status", papers[0]), {field: "skipped"}, **HTMX)

    assert _items(member) == {("Saved", papers[0].pk, ReadingStatus.SKIPPED)}
    html = response.content.decode()
    assert '<option value="skipped" selected>Skipped</option>' in html
    assert "Skipped (in “Saved”)" in html

    client.post(_url("status", papers[0]), {field: "reading", "next": LIST_URL})
    assert _items(member) == {("Saved", papers[0].pk, ReadingStatus.READING)}


def test_an_unknown_status_is_refused(client, member, papers):
    response = client.post(_url("status", papers[0]), {f"p{papers[0].pk}-status": "done"}, **HTMX)

    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not ReadingList.objects.exists()


# Lab tags


def test_tag_in_place_through_the_lab_tag_rules(client, member, papers):
    field = f"p{papers[0].pk}-name"

    response = client.post(_url("tag", papers[0]), {field: "  to   discuss "}, **HTMX)
    again = client.post(_url("tag", papers[0]), {field: "To discuss"}, **HTMX)
    empty = client.post(_url("tag", papers[0]), {field: "   "}, **HTMX)

    tag = PaperTag.objects.select_related("tag").get(paper=papers[0], tag__kind=TagKind.LAB)
    assert (tag.tag.name, tag.added_by) == ("to discuss", member)
    assert "Tagged “to discuss”" in response.content.decode()
    assert "already tagged" in again.content.decode()
    assert empty.status_code == 400 and "Tag not added" in empty.content.decode()


def test_a_refused_tag_name_stays_in_the_results_box(client, member, papers):
    make_tag("C++", TagKind.LAB)  # "C" would get its URL slug
    field = f"p{papers[0].pk}-name"

    refused = client.post(_url("tag", papers[0]), {field: "C"}, **HTMX).content.decode()
    tagged = client.post(_url("tag", papers[0]), {field: "graphs"}, **HTMX).content.decode()

    assert "too close to the existing lab tag" in refused
    assert 'size="12" value="C" data-triage-tag' in refused
    assert 'size="12" data-triage-tag' in tagged


def test_tag_without_javascript(client, member, papers):
    response = client.post(
        _url("tag", papers[1]), {f"p{papers[1].pk}-name": "robotics", "next": LIST_URL}
    )

    assert response["Location"] == LIST_URL
    assert PaperTag.objects.filter(paper=papers[1], tag__name="robotics").exists()


# Bulk actions


def _bulk(client, data, **extra):
    return client.post(reverse("annotations:triage-bulk"), data, **extra)


def test_bulk_save_reports_and_refreshes_each_result(client, member, papers):
    make_reading_list(member, "Saved", papers=[papers[0]], is_default=True)

    response = _bulk(client, {"paper": [p.pk for p in papers], "action": "save"}, **HTMX)

    html = response.content.decode()
    # Said once, at the bar (issue 28): the refreshed blocks carry no copy of the message.
    assert html.count("Saved 2 papers to “Saved” (1 paper already there).") == 1
    for paper in papers:
        assert f'id="triage-{paper.pk}"' in html and html.count('hx-swap-oob="true"') == 3
    assert {pk for _, pk, _ in _items(member)} == {p.pk for p in papers}


def test_bulk_without_javascript_and_select_all_on_the_page(client, member, papers):
    page_papers = ",".join(str(p.pk) for p in papers)

    response = _bulk(
        client,
        {"select_all": "1", "page_papers": page_papers, "action": "save", "next": LIST_URL},
    )

    assert response["Location"] == LIST_URL
    assert _message(response) == "Saved 3 papers to “Saved”."
    assert len(_items(member)) == 3


def test_bulk_add_to_list_status_and_tag(client, member, papers):
    queue = make_reading_list(member, "Queue")
    chosen = [papers[0].pk, papers[2].pk]

    listed = _bulk(client, {"paper": chosen, "action": "list", "reading_list": queue.pk}, **HTMX)
    marked = _bulk(client, {"paper": chosen, "action": "status", "status": "read"}, **HTMX)
    tagged = _bulk(client, {"paper": chosen, "action": "tag", "tag": "reading group"}, **HTMX)

    assert "Added 2 papers to “Queue”." in listed.content.decode()
    assert "Marked 2 papers “Read” in “Saved”." in marked.content.decode()
    assert "Tagged 2 papers “reading group”." in tagged.content.decode()
    assert _items(member) == {
        ("Queue", papers[0].pk, ReadingStatus.TO_READ),
        ("Queue", papers[2].pk, ReadingStatus.TO_READ),
        ("Saved", papers[0].pk, ReadingStatus.READ),
        ("Saved", papers[2].pk, ReadingStatus.READ),
    }
    assert set(
        PaperTag.objects.filter(tag__name="reading group").values_list("paper_id", flat=True)
    ) == set(chosen)


@pytest.mark.parametrize(
    ("ids", "error"),
    [
        (["abc"], "These are not paper numbers: “abc”."),
        (["999999"], "No paper has the number 999999."),
        # Past the id column's range, and a digit int() does not read: refused, not a 500.
        (["9223372036854775808"], "No paper has the number 9223372036854775808."),
        (["\u00b2"], "These are not paper numbers: “\u00b2”."),
        ([], "Select at least one paper."),
    ],
)
def test_bulk_with_bad_ids_writes_nothing(client, member, papers, ids, error):
    data = {"paper": [str(papers[0].pk), *ids] if ids else [], "action": "save"}

    htmx = _bulk(client, data, **HTMX)
    plain = _bulk(client, {**data, "next": LIST_URL})

    assert htmx.status_code == 400 and error in htmx.content.decode()
    assert plain["Location"] == LIST_URL and error in _message(plain)
    assert not ReadingList.objects.exists() and not ReadingListItem.objects.exists()


def test_bulk_tag_refused_for_one_paper_tags_none(client, member, papers):
    make_tag("C++", TagKind.LAB)  # "C" would get its URL slug

    response = _bulk(client, {"paper": [p.pk for p in papers], "action": "tag", "tag": "C"}, **HTMX)

    assert response.status_code == 400 and "too close to the existing lab tag" in (
        response.content.decode()
    )
    assert not PaperTag.objects.filter(tag__kind=TagKind.LAB).exclude(tag__name="C++").exists()


def test_bulk_action_needs_its_field(client, member, papers):
    response = _bulk(client, {"paper": [papers[0].pk], "action": "list"}, **HTMX)

    assert response.status_code == 400 and "Choose one of your reading lists." in (
        response.content.decode()
    )
    assert not ReadingListItem.objects.exists()


# Who sees what


def test_anonymous_visitors_see_no_controls_and_cannot_post(client, papers):
    page = client.get(LIST_URL).content.decode()
    response = client.post(_url("save", papers[0]))

    assert 'class="triage' not in page and "bulk-form" not in page and "data-triage" not in page
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not ReadingList.objects.exists()


def test_the_menus_list_only_my_lists(client, member, other_user, papers):
    make_reading_list(member, "My queue")
    make_reading_list(member, "Lab picks", visibility=Visibility.SHARED)
    make_reading_list(other_user, "Bob secret list")
    make_reading_list(other_user, "Bob shared list", visibility=Visibility.SHARED)

    html = client.get(LIST_URL).content.decode()

    assert "My queue" in html and "Lab picks (shared)" in html
    assert "Bob secret list" not in html and "Bob shared list" not in html


def test_the_page_shows_my_state_per_result(client, member, papers):
    make_reading_list(member, "Saved", papers=[papers[1]], is_default=True)
    ReadingListItem.objects.filter(paper=papers[1]).update(status=ReadingStatus.READING)
    make_reading_list(member, "Queue", papers=[papers[1], papers[2]])

    html = client.get(LIST_URL).content.decode()

    block = html[html.index(f'id="triage-{papers[1].pk}"') :]
    block = block[: block.index("</div>")]
    assert "Saved ✓" in block and '<option value="reading" selected>' in block
    assert "Reading · in Queue, Saved" in block  # the state label
    other = html[html.index(f'id="triage-{papers[2].pk}"') :]
    assert "data-triage-save" in other[: other.index("</div>")]


@pytest.mark.parametrize("page", ["author", "tag"])
def test_author_and_tag_pages_have_the_controls(client, member, page):
    paper = make_paper("Tagged paper", authors=["Ada"], tags=[("Poster", TagKind.TRACK)])
    url = (
        reverse("papers:author", args=[paper.authorships.get().author_id])
        if page == "author"
        else make_tag("Poster", TagKind.TRACK).get_absolute_url()
    )

    html = client.get(url).content.decode()

    assert f'id="triage-{paper.pk}"' in html and 'id="bulk-form"' in html
    assert "js/triage.js" in html


# Query budgets


def _many(count: int):
    for n in range(count):
        make_paper(f"Graph study {n}", authors=[f"Author {n}"])
    current_searcher()


@pytest.mark.parametrize("count", [5, 25])
def test_list_page_budget_for_a_member_does_not_grow_with_results(
    client, member, django_assert_num_queries, count
):
    _many(count)
    make_reading_list(member, "Saved", is_default=True)
    # session, user, search index up to date?, my lists' and notes' papers (the "mine"
    # facet), page rows (with their first authors and tags), tag facet labels, author facet
    # names, unread notifications (the header), then triage_state's two: my lists, my items
    # among the page's papers.
    with django_assert_num_queries(10):
        response = client.get("/?per_page=25")
    assert len(response.context["papers"]) == count


@pytest.mark.parametrize("count", [5, 25])
def test_list_page_budget_for_anonymous_visitors_is_unchanged(
    client, db, django_assert_num_queries, count
):
    _many(count)
    # search index up to date?, page rows (with their first authors and tags), tag facet
    # labels, author facet names: none for triage.
    with django_assert_num_queries(4):
        response = client.get("/?per_page=25")
    assert len(response.context["papers"]) == count


# The default list, chosen on the list form


def test_choosing_a_new_default_list_unsets_the_old_one(client, member):
    old = make_reading_list(member, "Saved", is_default=True)

    client.post(
        reverse("annotations:list-create"),
        {"name": "Inbox", "visibility": "private", "is_default": "on"},
    )

    old.refresh_from_db()
    assert not old.is_default
    assert ReadingList.objects.get(owner=member, is_default=True).name == "Inbox"
    edit = client.post(
        reverse("annotations:list-edit", args=[old.pk]),
        {"name": "Saved", "visibility": "private", "is_default": "on"},
    )
    assert edit.status_code == 302
    assert ReadingList.objects.get(owner=member, is_default=True) == old


def test_another_members_default_is_left_alone(client, member, other_user):
    theirs = make_reading_list(other_user, "Saved", is_default=True)

    client.post(
        reverse("annotations:list-create"),
        {"name": "Mine", "visibility": "private", "is_default": "on"},
    )

    theirs.refresh_from_db()
    assert theirs.is_default


def test_the_list_form_offers_the_default_choice(client, member):
    html = client.get(reverse("annotations:lists")).content.decode()
    assert 'name="is_default"' in html and "Default list for Save" in html


def test_add_to_list_without_choosing_is_refused(client, member, papers):
    make_reading_list(member, "Queue")

    response = client.post(_url("list", papers[0]), {f"p{papers[0].pk}-reading_list": ""}, **HTMX)

    assert response.status_code == 400
    assert "Choose one of your reading lists." in response.content.decode()
    assert not ReadingListItem.objects.exists()


def test_search_as_you_type_fragment_keeps_the_controls(client, member, papers):
    html = client.get(LIST_URL, **HTMX).content.decode()

    assert all(f'id="triage-{paper.pk}"' in html for paper in papers)
    assert 'form="bulk-form"' in html


def test_bulk_refuses_more_papers_than_a_page_holds(client, member, papers):
    ids = [str(papers[0].pk)] + [str(n) for n in range(10**6, 10**6 + 100)]

    response = _bulk(client, {"paper": ids, "action": "save"}, **HTMX)

    assert response.status_code == 400
    assert "Select at most 100 papers at a time." in response.content.decode()
    assert not ReadingList.objects.exists()


@pytest.mark.parametrize("name", ["save", "unsave", "list", "status", "tag"])
def test_triage_controls_only_take_posts(client, member, papers, name):
    assert client.get(_url(name, papers[0])).status_code == 405
