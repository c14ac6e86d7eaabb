"""Paper admin: the changelist a curator works in, its actions, and curator-edit tracking."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from papers.models import Author, Authorship, Paper, PaperTag, Tag, TagKind
from tests.factories import make_paper, make_tag, make_user

CHANGELIST = "admin:papers_paper_changelist"
XSS = "<img src=x onerror=alert(1)>"

pytestmark = pytest.mark.django_db


def changelist(admin_client, **params):
    return admin_client.get(reverse(CHANGELIST), params)


def listed_titles(response) -> set[str]:
    return {paper.title for paper in response.context["cl"].result_list}


def change_url(paper: Paper) -> str:
    return reverse("admin:papers_paper_change", args=[paper.pk])


def inline_data(prefix: str, rows: list[dict], *, initial: int) -> dict:
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for index, row in enumerate(rows):
        for name, value in row.items():
            data[f"{prefix}-{index}-{name}"] = value
    return data


def change_form_data(paper: Paper, *, authors=None, tags=None, **fields) -> dict:
    """The POST a curator's browser sends for the paper's change form, with edits applied.

    `authors` / `tags` replace the inline rows; by default the stored rows are sent unchanged.
    """
    data = {
        "title": paper.title,
        "abstract": paper.abstract,
        "forum_id": paper.forum_id,
        "forum_url": paper.forum_url,
        "pdf_url": paper.pdf_url,
        "curation_reason": paper.curation_reason,
    }
    if paper.needs_curation:
        data["needs_curation"] = "on"
    data.update(fields)
    if data.get("needs_curation") is False:
        del data["needs_curation"]
    stored_authors = list(paper.authorships.order_by("position"))
    if authors is None:
        authors = [
            {"id": a.pk, "paper": paper.pk, "position": a.position, "author": a.author_id}
            for a in stored_authors
        ]
    stored_tags = list(paper.paper_tags.all())
    if tags is None:
        tags = [{"id": t.pk, "paper": paper.pk, "tag": t.tag_id} for t in stored_tags]
    data.update(inline_data("authorships", authors, initial=len(stored_authors)))
    data.update(inline_data("paper_tags", tags, initial=len(stored_tags)))
    # The reviews' inline is read only: its management form, and no rows.
    data.update(inline_data("reviews", [], initial=0))
    return data


def save_paper(admin_client, paper: Paper, data: dict):
    response = admin_client.post(change_url(paper), data)
    errors = response.context and response.context.get("errors")
    assert response.status_code == 302, errors
    paper.refresh_from_db()
    return response


# --- changelist columns, search and filters ---------------------------------------------


def test_changelist_shows_curator_columns(admin_client):
    make_paper(
        "Sparse Attention",
        authors=["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
        tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)],
        forum_id="abc123",
        pdf_url="https://openreview.net/pdf?id=abc123",
    )
    content = changelist(admin_client).content.decode()
    assert "Sparse Attention" in content
    assert "Ada Lovelace, Alan Turing, Grace Hopper et al. (4)" in content
    assert "Edsger Dijkstra" not in content
    assert "ICLR 2024 · Oral" in content
    # Status first (the OpenReview link is on the paper's page: its forum id and URL).
    assert '<td class="field-curation_status">-</td>' in content


def test_untitled_paper_shows_placeholder_and_reason(admin_client):
    make_paper("", needs_curation=True, curation_reason="Imported without a title")
    content = changelist(admin_client).content.decode()
    assert "Untitled paper (awaiting curation)" in content
    assert "Imported without a title" in content


def test_forum_link_never_links_a_javascript_url(admin_client):
    paper = make_paper("Odd link", forum_id="f1", forum_url="javascript:alert(1)")
    content = changelist(admin_client).content.decode()
    assert "javascript:alert(1)" not in content
    page = admin_client.get(reverse("admin:papers_paper_change", args=[paper.pk]))
    assert 'href="javascript:alert(1)"' not in page.content.decode()


@pytest.mark.parametrize(
    "query, expected",
    [
        ("diffusion", {"Diffusion Models Beat GANs"}),  # title
        ("zebrafish", {"Counting Fish"}),  # abstract
        ("lovelace", {"Counting Fish"}),  # author name, through the authorships relation
        ("FORUM-42", {"Diffusion Models Beat GANs"}),  # exact forum id
    ],
)
def test_search_covers_title_abstract_author_and_forum_id(admin_client, query, expected):
    make_paper("Diffusion Models Beat GANs", forum_id="forum-42", authors=["Alan Turing"])
    make_paper("Counting Fish", abstract="Zebrafish larvae.", authors=["Ada Lovelace"])
    make_paper("Unrelated", abstract="Nothing here.", authors=["Grace Hopper"])
    assert listed_titles(changelist(admin_client, q=query)) == expected


def test_search_by_author_lists_a_paper_once(admin_client):
    make_paper("Two Adas", authors=["Ada Lovelace", "Ada Byron"])
    response = changelist(admin_client, q="ada")
    assert [p.title for p in response.context["cl"].result_list] == ["Two Adas"]


def test_venue_and_track_filters_offer_db_values_and_filter(admin_client):
    make_paper("Oral one", tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)])
    make_paper("Poster one", tags=[("NeurIPS 2023", TagKind.VENUE), ("Poster", TagKind.TRACK)])
    response = changelist(admin_client)
    content = response.content.decode()
    assert "NeurIPS 2023" in content and "?track=oral" in content

    assert listed_titles(changelist(admin_client, track="oral")) == {"Oral one"}
    assert listed_titles(changelist(admin_client, venue="neurips-2023")) == {"Poster one"}
    assert listed_titles(changelist(admin_client, venue="neurips-2023", track="oral")) == set()


def test_needs_curation_filter(admin_client):
    make_paper("Fine")
    make_paper("Broken", needs_curation=True, curation_reason="Odd abstract")
    assert listed_titles(changelist(admin_client, needs_curation__exact="1")) == {"Broken"}
    assert listed_titles(changelist(admin_client, needs_curation__exact="0")) == {"Fine"}


def test_has_pdf_filter(admin_client):
    make_paper("With pdf", pdf_url="https://example.org/a.pdf")
    make_paper("Without pdf", pdf_url="")
    assert listed_titles(changelist(admin_client, has_pdf="yes")) == {"With pdf"}
    assert listed_titles(changelist(admin_client, has_pdf="no")) == {"Without pdf"}


def test_reviewed_filter(admin_client):
    from django.utils import timezone

    make_paper("Seen", reviewed_at=timezone.now())
    make_paper("Unseen")
    assert listed_titles(changelist(admin_client, reviewed="yes")) == {"Seen"}
    assert listed_titles(changelist(admin_client, reviewed="no")) == {"Unseen"}


def test_unknown_filter_value_is_not_a_server_error(admin_client):
    make_paper("Anything")
    # The admin's own answer to a lookup it cannot apply: back to the changelist with ?e=1.
    invalid = changelist(admin_client, needs_curation__exact="banana")
    assert invalid.status_code == 302
    assert invalid["Location"] == reverse(CHANGELIST) + "?e=1"
    # A venue that is not among the filter's choices is ignored, as Django's list filters do.
    unknown_venue = changelist(admin_client, venue="no-such-venue")
    assert unknown_venue.status_code == 200
    assert listed_titles(unknown_venue) == {"Anything"}


def _fill_catalogue(count: int) -> None:
    for n in range(count):
        make_paper(
            f"Paper {n}",
            authors=[f"Author {n} A", f"Author {n} B"],
            tags=[("ICLR 2024", TagKind.VENUE), ("Poster", TagKind.TRACK), (f"lab{n}", "lab")],
        )


@pytest.mark.parametrize("rows", [3, 40])
def test_changelist_query_count_does_not_grow_with_rows(
    admin_client, django_assert_max_num_queries, rows
):
    _fill_catalogue(rows)
    # session, user, track choices, venue choices, count, page of papers,
    # authorships with authors, paper tags with tags
    with django_assert_max_num_queries(9):
        response = changelist(admin_client)
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == rows
    content = response.content.decode()
    assert f"Paper {rows - 1}" in content and f"Author {rows - 1} B" in content


def test_search_query_count_does_not_grow_with_rows(admin_client, django_assert_max_num_queries):
    _fill_catalogue(30)
    changelist(admin_client, q="author")  # the search index is built on first use
    # the same eight, and one for the search index to catch up: the author join only adds
    # DISTINCT to the count and the page
    with django_assert_max_num_queries(9):
        response = changelist(admin_client, q="author")
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 30
    assert "Paper 29" in response.content.decode()


# --- the curation queue -----------------------------------------------------------------


def test_admin_index_links_to_the_curation_queue_with_its_size(admin_client):
    make_paper("", needs_curation=True, curation_reason="Imported without a title")
    make_paper("", needs_curation=True, curation_reason="Imported without a title")
    make_paper("Done")
    content = admin_client.get(reverse("admin:index")).content.decode()
    queue = f"{reverse(CHANGELIST)}?needs_curation__exact=1"
    assert f'href="{queue}"' in content
    assert "2 papers need curation" in content


def test_a_curator_with_only_the_change_permission_sees_the_curation_queue(client):
    # Django admin lets change_paper stand for view_paper; the queue link must follow it.
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="change_paper"))
    make_paper("", needs_curation=True, curation_reason="Imported without a title")
    client.force_login(curator)
    content = client.get(reverse("admin:index")).content.decode()
    assert "1 paper needs curation" in content


def test_staff_who_cannot_see_papers_are_not_shown_the_curation_queue(client):
    client.force_login(make_user("outsider", is_staff=True))
    make_paper("", needs_curation=True, curation_reason="Imported without a title")
    assert "curation-queue" not in client.get(reverse("admin:index")).content.decode()


def test_curation_queue_link_lists_only_flagged_papers(admin_client):
    make_paper("Flagged", needs_curation=True, curation_reason="Check authors")
    make_paper("Clean")
    response = admin_client.get(f"{reverse(CHANGELIST)}?needs_curation__exact=1")
    assert listed_titles(response) == {"Flagged"}
    assert "Check authors" in response.content.decode()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
def test_the_curation_queue_reads_only_its_own_papers_in_order():
    # Indexing the flag alone let SQLite walk every paper by the newest index: 70 ms at
    # 100,000 papers for an empty queue.
    for query in (
        Paper.objects.needing_curation().order_by("-created_at", "-pk"),
        Paper.objects.filter(needs_curation__exact=1).order_by("-created_at", "-pk"),
    ):
        plan = query.explain()
        assert "papers_paper_curation_queue" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # no sort either


# --- actions ----------------------------------------------------------------------------


def run_action(admin_client, action: str, papers: list[Paper]):
    return admin_client.post(
        reverse(CHANGELIST),
        {"action": action, "_selected_action": [p.pk for p in papers]},
        follow=True,
    )


def test_mark_reviewed_action_clears_flag_and_stamps_time(admin_client):
    flagged = make_paper("", needs_curation=True, curation_reason="Imported without a title")
    untouched = make_paper("Other", needs_curation=True, curation_reason="Odd")
    response = run_action(admin_client, "mark_reviewed", [flagged])
    flagged.refresh_from_db()
    untouched.refresh_from_db()
    assert (flagged.needs_curation, flagged.curation_reason) == (False, "")
    assert flagged.reviewed_at is not None
    assert untouched.needs_curation and untouched.reviewed_at is None
    assert "Marked 1 paper reviewed." in [str(m) for m in get_messages(response.wsgi_request)]


def test_an_untitled_paper_marked_reviewed_is_no_longer_labelled_awaiting_curation(
    admin_client, client
):
    paper = make_paper("", needs_curation=True, curation_reason="Imported without a title")
    assert (
        "Untitled paper (awaiting curation)"
        in client.get(paper.get_absolute_url()).content.decode()
    )
    run_action(admin_client, "mark_reviewed", [paper])
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "awaiting curation" not in page
    assert '<h1 data-math class="untitled">Untitled paper</h1>' in page
    assert "awaiting curation" not in changelist(admin_client).content.decode()


def test_actions_work_on_a_searched_changelist(admin_client):
    # Searching through the author join makes the changelist queryset DISTINCT.
    found = make_paper("Found", authors=["Ada Lovelace"], needs_curation=True)
    response = admin_client.post(
        f"{reverse(CHANGELIST)}?q=lovelace",
        {"action": "mark_reviewed", "_selected_action": [found.pk]},
    )
    assert response.status_code == 302
    found.refresh_from_db()
    assert not found.needs_curation and found.reviewed_at is not None


def test_flag_for_curation_action_keeps_an_existing_reason(admin_client):
    plain = make_paper("Plain")
    reasoned = make_paper("Reasoned", curation_reason="Duplicate?")
    run_action(admin_client, "flag_for_curation", [plain, reasoned])
    plain.refresh_from_db()
    reasoned.refresh_from_db()
    assert plain.needs_curation and plain.curation_reason == "Flagged by admin"
    assert reasoned.needs_curation and reasoned.curation_reason == "Duplicate?"


def test_flagging_a_reviewed_paper_puts_it_back_in_the_queue_unreviewed(admin_client):
    paper = make_paper("Reviewed once", reviewed_at=timezone.now())
    run_action(admin_client, "flag_for_curation", [paper])
    paper.refresh_from_db()
    assert paper.needs_curation and paper.reviewed_at is None


def test_forget_curator_edits_action(admin_client):
    paper = make_paper("Edited", curator_edited_fields=["title"])
    run_action(admin_client, "forget_curator_edits", [paper])
    paper.refresh_from_db()
    assert paper.curator_edited_fields == []


# --- curator-edit tracking through the change form --------------------------------------


def test_change_form_renders_with_inlines(admin_client):
    paper = make_paper("Rendered", authors=["Ada Lovelace"], tags=[("Oral", TagKind.TRACK)])
    response = admin_client.get(change_url(paper))
    assert response.status_code == 200
    assert b"authorships-TOTAL_FORMS" in response.content
    assert b"paper_tags-TOTAL_FORMS" in response.content


def test_adding_a_paper_with_authors_in_admin(admin_client):
    ada = Author.objects.create(name="Ada Lovelace")
    alan = Author.objects.create(name="Alan Turing")
    data = {"title": "Hand made", "abstract": "Typed in.", "forum_id": "", "forum_url": ""}
    data |= {"pdf_url": "", "curation_reason": ""}
    data |= inline_data(
        "authorships",
        [{"position": 3, "author": alan.pk}, {"position": 1, "author": ada.pk}],
        initial=0,
    )
    data |= inline_data("paper_tags", [], initial=0)
    response = admin_client.post(reverse("admin:papers_paper_add"), data)
    assert response.status_code == 302, response.context and response.context.get("errors")
    paper = Paper.objects.get(title="Hand made")
    assert authors_of(paper) == [(0, "Ada Lovelace"), (1, "Alan Turing")]
    assert paper.author_names == "Ada Lovelace, Alan Turing"
    assert paper.curator_edited_fields == ["abstract", "authors", "title"]


def authors_of(paper: Paper) -> list[tuple[int, str]]:
    return list(paper.authorships.order_by("position").values_list("position", "author__name"))


def test_change_form_queries_do_not_repeat_per_author_row(
    admin_client, django_assert_max_num_queries
):
    names = [f"Person {n}" for n in range(20)]
    paper = make_paper("Crowded", authors=names, tags=[("Oral", TagKind.TRACK)])
    # session, user, paper, authorship rows (with author and paper), tag rows, content type,
    # open import conflicts: the author and tag pickers are labelled from the rows, not with a
    # query each
    with django_assert_max_num_queries(7):
        response = admin_client.get(change_url(paper))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Crowded" in content
    assert all(name in content for name in names)
    # each picker still shows its author, selected
    assert content.count("selected>Person ") == len(names)


def test_a_picker_re_shown_after_an_error_shows_the_newly_chosen_author(admin_client):
    paper = make_paper("Crowded", authors=["Ann", "Bob"])
    cid = Author.objects.create(name="Cid")
    rows = [
        {"id": a.pk, "paper": paper.pk, "position": a.position, "author": a.author_id}
        for a in paper.authorships.order_by("position")
    ]
    rows[0]["author"] = cid.pk
    rows[1]["position"] = "99999"  # over the limit: the form comes back
    response = admin_client.post(change_url(paper), change_form_data(paper, authors=rows))
    assert response.status_code == 200
    content = response.content.decode()
    assert f'value="{cid.pk}" selected>Cid' in content


def test_editing_title_and_pdf_records_those_fields(admin_client):
    paper = make_paper("Old title", authors=["Ada Lovelace"], pdf_url="")
    save_paper(
        admin_client,
        paper,
        change_form_data(paper, title="New title", pdf_url="https://example.org/p.pdf"),
    )
    assert paper.title == "New title"
    assert paper.curator_edited_fields == ["pdf_url", "title"]


def test_saving_without_changes_records_nothing(admin_client):
    paper = make_paper("Same", authors=["Ada Lovelace"], tags=[("Oral", TagKind.TRACK)])
    save_paper(admin_client, paper, change_form_data(paper))
    assert paper.curator_edited_fields == []


def test_earlier_curator_edits_are_kept(admin_client):
    paper = make_paper("Same", curator_edited_fields=["abstract"])
    save_paper(admin_client, paper, change_form_data(paper, forum_url="https://openreview.net/x"))
    assert paper.curator_edited_fields == ["abstract", "forum_url"]


def test_curation_flag_edits_are_not_import_fields(admin_client):
    paper = make_paper("Same")
    save_paper(admin_client, paper, change_form_data(paper, curation_reason="Check venue"))
    assert paper.curation_reason == "Check venue"
    assert paper.curator_edited_fields == []


def test_reordering_authors_records_authors_and_refreshes_author_names(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing"])
    ada, alan = paper.authorships.order_by("position")
    rows = [  # a swap: each row takes the other's position
        {"id": ada.pk, "paper": paper.pk, "position": 1, "author": ada.author_id},
        {"id": alan.pk, "paper": paper.pk, "position": 0, "author": alan.author_id},
    ]
    save_paper(admin_client, paper, change_form_data(paper, authors=rows))
    assert paper.author_names == "Alan Turing, Ada Lovelace"
    assert paper.curator_edited_fields == ["authors"]


def test_adding_and_removing_authors_renumbers_positions(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing", "Grace Hopper"])
    newcomer = Author.objects.create(name="Edsger Dijkstra")
    ada, alan, grace = paper.authorships.order_by("position")
    rows = [
        {"id": ada.pk, "paper": paper.pk, "position": 0, "author": ada.author_id},
        {"id": alan.pk, "paper": paper.pk, "position": 1, "author": alan.author_id, "DELETE": "on"},
        {"id": grace.pk, "paper": paper.pk, "position": 2, "author": grace.author_id},
        {"id": "", "paper": paper.pk, "position": 7, "author": newcomer.pk},
    ]
    save_paper(admin_client, paper, change_form_data(paper, authors=rows))
    stored = list(paper.authorships.order_by("position").values_list("position", "author__name"))
    assert stored == [(0, "Ada Lovelace"), (1, "Grace Hopper"), (2, "Edsger Dijkstra")]
    assert paper.author_names == "Ada Lovelace, Grace Hopper, Edsger Dijkstra"


def test_swapping_authors_between_rows_saves(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing"])
    ada, alan = paper.authorships.order_by("position")
    rows = [  # same positions, authors exchanged
        {"id": ada.pk, "paper": paper.pk, "position": 0, "author": alan.author_id},
        {"id": alan.pk, "paper": paper.pk, "position": 1, "author": ada.author_id},
    ]
    save_paper(admin_client, paper, change_form_data(paper, authors=rows))
    assert paper.author_names == "Alan Turing, Ada Lovelace"


def test_same_author_twice_is_a_form_error(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace"])
    ada = paper.authorships.get()
    rows = [
        {"id": ada.pk, "paper": paper.pk, "position": 0, "author": ada.author_id},
        {"id": "", "paper": paper.pk, "position": 1, "author": ada.author_id},
    ]
    response = admin_client.post(change_url(paper), change_form_data(paper, authors=rows))
    assert response.status_code == 200
    assert Authorship.objects.filter(paper=paper).count() == 1


def test_adding_a_tag_records_tags_and_the_curator(admin_client, admin_user):
    paper = make_paper("Tagged", tags=[("ICLR 2024", TagKind.VENUE)])
    oral = make_tag("Oral", TagKind.TRACK)
    existing = paper.paper_tags.get()
    rows = [
        {"id": existing.pk, "paper": paper.pk, "tag": existing.tag_id},
        {"id": "", "paper": paper.pk, "tag": oral.pk},
    ]
    save_paper(admin_client, paper, change_form_data(paper, tags=rows))
    assert paper.curator_edited_fields == ["tags"]
    added = PaperTag.objects.get(paper=paper, tag=oral)
    assert added.added_by == admin_user
    assert PaperTag.objects.get(pk=existing.pk).added_by is None  # imported tag untouched


def test_duplicate_forum_id_is_a_form_error(admin_client):
    make_paper("First", forum_id="taken")
    paper = make_paper("Second", forum_id="mine")
    response = admin_client.post(change_url(paper), change_form_data(paper, forum_id="taken"))
    assert response.status_code == 200
    paper.refresh_from_db()
    assert paper.forum_id == "mine"


# --- an untitled paper gets its title ---------------------------------------------------


def test_giving_an_untitled_paper_a_title_takes_it_out_of_the_queue(admin_client):
    paper = make_paper("", needs_curation=True, curation_reason="Imported without a title")
    save_paper(admin_client, paper, change_form_data(paper, title="Found the title"))
    assert paper.title == "Found the title"
    assert (paper.needs_curation, paper.curation_reason) == (False, "")
    assert paper.reviewed_at is None  # reviewing stays the curator's explicit action
    assert paper.curator_edited_fields == ["title"]


def test_title_does_not_clear_a_flag_for_another_reason(admin_client):
    paper = make_paper("", needs_curation=True, curation_reason="Authors look wrong")
    save_paper(admin_client, paper, change_form_data(paper, title="Found the title"))
    assert paper.needs_curation and paper.curation_reason == "Authors look wrong"


def test_title_keeps_a_flag_the_curator_sets_in_the_same_form(admin_client):
    paper = make_paper("", needs_curation=True, curation_reason="Imported without a title")
    data = change_form_data(paper, title="Found", curation_reason="Title from PDF, verify")
    save_paper(admin_client, paper, data)
    assert paper.needs_curation and paper.curation_reason == "Title from PDF, verify"


# --- escaping and access ----------------------------------------------------------------


def test_title_and_author_markup_is_escaped_in_changelist(admin_client):
    make_paper(XSS, authors=[XSS], tags=[(XSS, TagKind.VENUE)], forum_id=XSS)
    content = changelist(admin_client).content.decode()
    assert XSS not in content
    assert "&lt;img src=x onerror=alert(1)&gt;" in content


def test_untitled_paper_markup_in_abstract_never_reaches_changelist(admin_client):
    make_paper("", abstract=XSS, needs_curation=True)
    assert XSS not in changelist(admin_client).content.decode()


@pytest.mark.parametrize("url_name", ["admin:index", CHANGELIST, "admin:papers_author_changelist"])
def test_non_staff_users_are_refused(client, url_name):
    client.force_login(make_user("member"))
    response = client.get(reverse(url_name))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_anonymous_visitors_are_refused(client):
    response = client.get(reverse(CHANGELIST))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_staff_without_paper_permission_sees_no_queue_link(client):
    make_paper("", needs_curation=True)
    client.force_login(make_user("helper", is_staff=True))
    response = client.get(reverse("admin:index"))
    assert response.status_code == 200
    assert b"need curation" not in response.content


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u202egat", "\ufdfa" * 20])
def test_admin_refuses_tag_names_that_are_invisible_reordered_or_too_long(admin_client, name):
    response = admin_client.post(reverse("admin:papers_tag_add"), {"name": name, "kind": "lab"})
    assert response.status_code == 200
    assert "errornote" in response.content.decode()
    assert not Tag.objects.exists()


@pytest.mark.parametrize("field", ["title", "abstract"])
def test_admin_refuses_text_that_would_reorder_what_follows_it(admin_client, field):
    paper = make_paper("Kept", abstract="The stored abstract.")
    data = change_form_data(paper, **{field: "Safe \u2067hidden"})
    response = admin_client.post(change_url(paper), data)
    assert response.status_code == 200
    assert "bidirectional embedding, override or isolate" in response.content.decode()
    paper.refresh_from_db()
    assert (paper.title, paper.abstract) == ("Kept", "The stored abstract.")


def test_admin_refuses_an_abstract_over_the_limit_and_keeps_the_old_one(admin_client):
    from papers.text import MAX_ABSTRACT

    paper = make_paper("Kept", abstract="The stored abstract.")
    data = change_form_data(paper, abstract="word " * (MAX_ABSTRACT // 5) + "x")
    response = admin_client.post(change_url(paper), data)
    assert response.status_code == 200
    assert f"at most {MAX_ABSTRACT}" in response.content.decode().replace(",", "")
    paper.refresh_from_db()
    assert paper.abstract == "The stored abstract."


def test_admin_accepts_an_abstract_exactly_at_the_limit(admin_client):
    from papers.text import MAX_ABSTRACT

    paper = make_paper("At the limit")
    data = change_form_data(paper, abstract="x" * MAX_ABSTRACT)
    response = admin_client.post(change_url(paper), data)
    assert response.status_code == 302
    paper.refresh_from_db()
    assert len(paper.abstract) == MAX_ABSTRACT


# --- searching as curators type ---------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "https://openreview.net/forum?id=GN921JHCRw",  # pasted from the browser
        "arXiv:2401.18059v1",
        "https://doi.org/10.1234/RAPTOR.5",
        "Christopher D. Manning",  # the catalogue spells him without the period
    ],
)
def test_paper_search_finds_what_curators_paste(admin_client, typed):
    wanted = make_paper(
        "RAPTOR",
        authors=["Parth Sarthi", "Christopher D Manning"],
        forum_id="GN921JHCRw",
        arxiv_id="2401.18059",
        doi="10.1234/raptor.5",
    )
    make_paper("Other", authors=["Christopher Manning-Smith"], forum_id="abcdefghij")
    response = changelist(admin_client, q=typed)
    assert [paper.pk for paper in response.context["cl"].result_list] == [wanted.pk]


def test_paper_search_by_number_finds_the_paper_a_curation_reason_names(admin_client):
    original = make_paper("Original")
    make_paper("Copy", needs_curation=True, curation_reason=f"possible duplicate of #{original.pk}")
    response = changelist(admin_client, q=f"#{original.pk}")
    assert listed_titles(response) == {"Original"}


def test_paper_search_still_matches_words_anywhere(admin_client):
    make_paper("Diffusion for language", authors=["Ada Lovelace"])
    make_paper("Unrelated")
    assert listed_titles(changelist(admin_client, q="language lovelace")) == {
        "Diffusion for language"
    }


@pytest.mark.parametrize("typed", ["schrodinger bridge", "wurstchen", "Schrödinger"])
def test_paper_search_folds_accents_in_titles(admin_client, typed):
    make_paper("Light Schrödinger Bridge")
    make_paper("Würstchen: Efficient Diffusion")
    make_paper("Bridge Sampling")
    wanted = {
        "schrodinger bridge": {"Light Schrödinger Bridge"},
        "wurstchen": {"Würstchen: Efficient Diffusion"},
        "Schrödinger": {"Light Schrödinger Bridge"},
    }[typed]
    assert listed_titles(changelist(admin_client, q=typed)) == wanted


def test_an_author_typed_in_at_a_taken_position_is_inserted_there(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing", "Grace Hopper"])
    newcomer = Author.objects.create(name="Edsger Dijkstra")
    rows = [
        {"id": a.pk, "paper": paper.pk, "position": a.position, "author": a.author_id}
        for a in paper.authorships.order_by("position")
    ]
    rows.append({"id": "", "paper": paper.pk, "position": 1, "author": newcomer.pk})
    save_paper(admin_client, paper, change_form_data(paper, authors=rows))
    assert authors_of(paper) == [
        (0, "Ada Lovelace"),
        (1, "Edsger Dijkstra"),
        (2, "Alan Turing"),
        (3, "Grace Hopper"),
    ]


def curator_who_may_change_papers(client):
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["view_paper", "change_paper", "view_author", "view_tag"]
        )
    )
    client.force_login(curator)
    return client


def test_a_curator_who_may_change_papers_edits_their_authors_and_tags(client):
    # Authorship and PaperTag rows have no admin of their own: nobody is given their
    # permissions, so the paper's own decide who edits a paper's author list and tags.
    curator = curator_who_may_change_papers(client)
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing"])
    content = curator.get(change_url(paper)).content.decode()
    assert 'name="authorships-0-position"' in content and 'name="paper_tags-0-tag"' in content
    rows = [
        {"id": a.pk, "paper": paper.pk, "position": a.position, "author": a.author_id}
        for a in paper.authorships.order_by("position")
    ]
    rows[0]["position"] = 1
    rows[1]["DELETE"] = "on"
    save_paper(curator, paper, change_form_data(paper, authors=rows))
    assert authors_of(paper) == [(0, "Ada Lovelace")]


def test_a_curator_who_may_only_view_papers_cannot_edit_their_authors(client):
    curator = make_user("reader", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="view_paper"))
    client.force_login(curator)
    paper = make_paper("Ordered", authors=["Ada Lovelace"])
    content = client.get(change_url(paper)).content.decode()
    assert "Ada Lovelace" in content and 'name="authorships-0-position"' not in content


def test_moving_one_author_to_a_taken_position_moves_the_others_up(admin_client):
    paper = make_paper("Ordered", authors=["Ada Lovelace", "Alan Turing", "Grace Hopper"])
    rows = [
        {"id": a.pk, "paper": paper.pk, "position": a.position, "author": a.author_id}
        for a in paper.authorships.order_by("position")
    ]
    rows[0]["position"] = 2  # only Ada's row edited: she becomes the last author
    save_paper(admin_client, paper, change_form_data(paper, authors=rows))
    assert authors_of(paper) == [(0, "Alan Turing"), (1, "Grace Hopper"), (2, "Ada Lovelace")]


def test_search_for_a_malformed_url_lists_nothing_rather_than_failing(admin_client):
    # A pasted URL is read for its forum id; an unclosed "[" made urlsplit raise (a 500).
    make_paper("A paper")
    response = changelist(admin_client, q="http://[")
    assert response.status_code == 200
    assert listed_titles(response) == set()


@pytest.mark.parametrize(
    ("field", "typed", "stored"),
    [
        ("doi", "https://doi.org/10.5555/ABC.Def", "10.5555/abc.def"),
        ("arxiv_id", "arXiv:2310.01234v2", "2310.01234"),
        ("forum_id", "https://openreview.net/forum?id=AbC_12-x", "AbC_12-x"),
    ],
)
def test_identifiers_typed_by_a_curator_are_stored_as_imports_store_them(
    admin_client, field, typed, stored
):
    paper = make_paper(title="Identified")
    save_paper(admin_client, paper, change_form_data(paper, **{field: typed}))
    assert getattr(Paper.objects.get(pk=paper.pk), field) == stored


@pytest.mark.parametrize(
    ("field", "typed"),
    [("doi", "x"), ("arxiv_id", "notanid"), ("forum_id", "a b/c"), ("forum_id", "<b>")],
)
def test_malformed_identifiers_are_form_errors(admin_client, field, typed):
    paper = make_paper(title="Identified", forum_id="kept")
    response = admin_client.post(change_url(paper), change_form_data(paper, **{field: typed}))
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert Paper.objects.get(pk=paper.pk).forum_id == "kept"


def test_a_doi_a_curator_typed_in_capitals_is_found_by_the_next_import(admin_client, tmp_path):
    from papers.importing.pipeline import import_paths

    paper = make_paper(title="Cited by DOI")
    save_paper(admin_client, paper, change_form_data(paper, doi="10.5555/ABC"))
    record = {"title": "Cited by DOI", "doi": "10.5555/abc", "pdf": "https://example.org/a.pdf"}
    path = tmp_path / "zotero.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    import_paths([str(path)])
    assert Paper.objects.count() == 1
    assert Paper.objects.get().pdf_url == "https://example.org/a.pdf"


@pytest.mark.parametrize("forged", ["abc", "1.5", "99999999999999999999"])
def test_a_forged_author_choice_is_a_form_error_not_a_server_error(admin_client, forged):
    paper = make_paper("Forged", authors=["Ann"])
    rows = [{"paper": paper.pk, "position": "1", "author": forged}]
    data = change_form_data(paper, authors=rows)
    data["authorships-INITIAL_FORMS"] = "0"
    response = admin_client.post(change_url(paper), data)
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()


@pytest.mark.parametrize(
    "url_name",
    [
        CHANGELIST,
        "admin:papers_author_changelist",
        "admin:papers_tag_changelist",
        "admin:papers_importconflict_changelist",
        "admin:annotations_comment_changelist",
        "admin:auth_user_changelist",
    ],
)
@pytest.mark.parametrize("forged", ["abc", "99999999999999999999"])
def test_an_action_on_a_forged_selection_is_refused_with_a_message(admin_client, url_name, forged):
    paper = make_paper("Untouched")
    data = {"action": "delete_selected", "_selected_action": [forged], "index": "0"}
    response = admin_client.post(reverse(url_name), data, follow=True)
    assert response.status_code == 200
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "The selection names no such rows: nothing was done." in messages
    assert Paper.objects.filter(pk=paper.pk).exists()


def _changelists_with_search() -> list[str]:
    from django.contrib import admin

    return sorted(
        f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"
        for model, model_admin in admin.site._registry.items()
        if model_admin.search_fields and model._meta.app_label != "axes"
    )


@pytest.mark.parametrize("url_name", _changelists_with_search())
def test_a_pasted_essay_in_an_admin_search_box_is_not_a_server_error(admin_client, url_name):
    make_paper("Findable")
    response = admin_client.get(reverse(url_name), {"q": "x" * 60_000})
    assert response.status_code == 200
