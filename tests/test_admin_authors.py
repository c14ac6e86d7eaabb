"""Author and tag admin: merging duplicate authors, paper counts, safe renames."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse

from papers.models import Author, Authorship, Paper, Tag, TagKind
from papers.services import merge_authors
from tests.factories import make_paper, make_tag

AUTHORS = "admin:papers_author_changelist"
TAGS = "admin:papers_tag_changelist"

pytestmark = pytest.mark.django_db


def author(name: str) -> Author:
    return Author.objects.get(name=name)


def authors_of(paper: Paper) -> list[tuple[int, str]]:
    return list(paper.authorships.order_by("position").values_list("position", "author__name"))


def merge_post(admin_client, authors: list[Author], *, keep: Author | None = None, **extra):
    data = {"action": "merge_authors", "_selected_action": [a.pk for a in authors], **extra}
    if keep is not None:
        data.update(confirm="yes", target=keep.pk)
    return admin_client.post(reverse(AUTHORS), data, follow=keep is not None)


# --- the merge action -------------------------------------------------------------------


def test_merge_asks_for_confirmation_defaulting_to_the_author_with_most_papers(admin_client):
    make_paper("One", authors=["J. Smith"])
    make_paper("Two", authors=["John Smith"])
    make_paper("Three", authors=["John Smith"])
    response = merge_post(admin_client, [author("J. Smith"), author("John Smith")])
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "admin/papers/author/merge.html"
    form = response.context["form"]
    assert form.initial["target"] == author("John Smith")
    content = response.content.decode()
    assert "John Smith (2 papers)" in content
    assert "Three" in content  # sample titles help tell the two apart
    # The page's own form posts back the action and both authors.
    assert '<input type="hidden" name="action" value="merge_authors">' in content
    for pk in (author("J. Smith").pk, author("John Smith").pk):
        assert f'<input type="hidden" name="_selected_action" value="{pk}">' in content
    assert Author.objects.count() == 2  # nothing merged before confirmation


def test_merge_defaults_to_the_fuller_name_when_paper_counts_tie(admin_client):
    # Alphabetically "Y. Bengio" comes first; the abbreviation must not be the default.
    make_paper("One", authors=["Y. Bengio"])
    make_paper("Two", authors=["Yoshua Bengio"])
    response = merge_post(admin_client, [author("Y. Bengio"), author("Yoshua Bengio")])
    assert response.context["form"].initial["target"] == author("Yoshua Bengio")


def test_merge_moves_papers_deletes_others_and_reports(admin_client):
    one = make_paper("One", authors=["Ada Lovelace", "J. Smith"])
    two = make_paper("Two", authors=["John Smith"])
    keep, other = author("John Smith"), author("J. Smith")
    response = merge_post(admin_client, [keep, other], keep=keep)

    assert not Author.objects.filter(pk=other.pk).exists()
    assert authors_of(one) == [(0, "Ada Lovelace"), (1, "John Smith")]
    assert authors_of(two) == [(0, "John Smith")]
    one.refresh_from_db()
    assert one.author_names == "Ada Lovelace, John Smith"
    # That author list is now a curator's: a re-import reports a conflict, never splits again.
    assert one.curator_edited_fields == ["authors"]
    two.refresh_from_db()
    assert two.curator_edited_fields == []  # the kept author's own paper did not change
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [
        "Merged J. Smith into John Smith: 1 paper moved, 0 duplicate authorships removed."
    ]
    assert LogEntry.objects.filter(object_id=str(keep.pk), action_flag=CHANGE).exists()


def test_merge_on_a_shared_paper_keeps_one_authorship_at_the_earliest_position(admin_client):
    shared = make_paper("Shared", authors=["J. Smith", "Ada Lovelace", "John Smith", "Alan Turing"])
    keep, other = author("John Smith"), author("J. Smith")
    merge_post(admin_client, [keep, other], keep=keep)

    assert authors_of(shared) == [(0, "John Smith"), (1, "Ada Lovelace"), (2, "Alan Turing")]
    assert Authorship.objects.filter(paper=shared, author=keep).count() == 1
    shared.refresh_from_db()
    assert shared.author_names == "John Smith, Ada Lovelace, Alan Turing"


def test_merge_with_an_unselected_target_choice_is_refused(admin_client):
    make_paper("One", authors=["J. Smith"])
    make_paper("Two", authors=["John Smith"])
    stranger = Author.objects.create(name="Grace Hopper")
    response = merge_post(admin_client, [author("J. Smith"), author("John Smith")], keep=stranger)
    assert response.status_code == 200
    assert "target" in response.context["form"].errors
    assert Author.objects.count() == 3


def test_merge_needs_two_authors(admin_client):
    make_paper("One", authors=["J. Smith"])
    response = admin_client.post(
        reverse(AUTHORS),
        {"action": "merge_authors", "_selected_action": [author("J. Smith").pk]},
        follow=True,
    )
    assert "Select at least two authors to merge." in [
        str(m) for m in get_messages(response.wsgi_request)
    ]
    assert Author.objects.count() == 1


def test_merge_refuses_select_all_across_a_big_catalogue(admin_client):
    for n in range(25):
        Author.objects.create(name=f"Person {n}")
    response = admin_client.post(
        reverse(AUTHORS),
        {"action": "merge_authors", "select_across": "1", "_selected_action": ["1"]},
        follow=True,
    )
    assert any("at most" in str(m) for m in get_messages(response.wsgi_request))
    assert Author.objects.count() == 25


# --- the service on its own -------------------------------------------------------------


def test_merge_service_folds_three_authors_on_one_paper():
    paper = make_paper("Many", authors=["A. Turing", "Ada Lovelace", "Alan Turing", "Turing A"])
    keep = author("Alan Turing")
    result = merge_authors(target=keep, others=[author("A. Turing"), author("Turing A")])
    assert authors_of(paper) == [(0, "Alan Turing"), (1, "Ada Lovelace")]
    assert (result.papers_moved, result.duplicates_removed) == (1, 2)


def test_merge_service_ignores_the_target_among_others():
    make_paper("Solo", authors=["Alan Turing"])
    keep = author("Alan Turing")
    result = merge_authors(target=keep, others=[keep])
    assert Author.objects.filter(pk=keep.pk).exists()
    assert (result.papers_moved, result.duplicates_removed) == (0, 0)


# --- author changelist and renames ------------------------------------------------------


def test_author_changelist_counts_papers_without_a_query_per_row(
    admin_client, django_assert_max_num_queries
):
    for n in range(30):
        make_paper(f"Paper {n}", authors=[f"Person {n}", "Ada Lovelace"])
    # session, user, count, page of authors annotated with their paper count
    with django_assert_max_num_queries(4):
        response = admin_client.get(reverse(AUTHORS), {"o": "-2"})  # most papers first
    assert response.status_code == 200
    first = response.context["cl"].result_list[0]
    assert (first.name, first.paper_count) == ("Ada Lovelace", 30)
    assert "Person 29" in response.content.decode()


def test_author_search_by_name(admin_client):
    make_paper("One", authors=["Ada Lovelace", "Alan Turing"])
    response = admin_client.get(reverse(AUTHORS), {"q": "lovelace"})
    assert [a.name for a in response.context["cl"].result_list] == ["Ada Lovelace"]


def test_renaming_an_author_refreshes_author_names(admin_client):
    paper = make_paper("One", authors=["Ada Lovelace", "A. Turing"])
    turing = author("A. Turing")
    response = admin_client.post(
        reverse("admin:papers_author_change", args=[turing.pk]), {"name": "Alan Turing"}
    )
    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.author_names == "Ada Lovelace, Alan Turing"
    # A re-import spelling "A. Turing" must report a conflict, not bring the old name back.
    assert paper.curator_edited_fields == ["authors"]


def test_renaming_onto_an_existing_name_is_a_form_error_not_a_crash(admin_client):
    make_paper("One", authors=["Ada Lovelace", "A. Turing"])
    turing = author("A. Turing")
    response = admin_client.post(
        reverse("admin:papers_author_change", args=[turing.pk]), {"name": "ada  lovelace"}
    )
    assert response.status_code == 200
    assert "merge the two authors instead" in response.content.decode()
    turing.refresh_from_db()
    assert turing.name == "A. Turing"


# --- tags -------------------------------------------------------------------------------


def test_tag_changelist_filters_by_kind_and_counts_papers(admin_client):
    make_paper("One", tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)])
    make_paper("Two", tags=[("ICLR 2024", TagKind.VENUE)])
    response = admin_client.get(reverse(TAGS), {"kind__exact": TagKind.VENUE})
    rows = [(t.name, t.paper_count) for t in response.context["cl"].result_list]
    assert rows == [("ICLR 2024", 2)]


def test_tag_search(admin_client):
    make_tag("Reinforcement learning", TagKind.LAB)
    make_tag("Oral", TagKind.TRACK)
    response = admin_client.get(reverse(TAGS), {"q": "reinforce"})
    assert [t.name for t in response.context["cl"].result_list] == ["Reinforcement learning"]


def test_tag_changelist_query_count_is_bounded(admin_client, django_assert_max_num_queries):
    for n in range(30):
        make_paper(f"Paper {n}", tags=[(f"topic {n}", TagKind.LAB)])
    # session, user, count, page of tags with their paper counts (a subquery per page row)
    with django_assert_max_num_queries(4):
        response = admin_client.get(reverse(TAGS))
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 30
    assert "topic 29" in response.content.decode()


def test_duplicate_tag_in_the_same_kind_is_a_form_error(admin_client):
    make_tag("RL", TagKind.LAB)
    response = admin_client.post(reverse("admin:papers_tag_add"), {"name": " rl ", "kind": "lab"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert Tag.objects.filter(kind=TagKind.LAB).count() == 1


def test_same_tag_name_in_another_kind_is_allowed(admin_client):
    make_tag("Oral", TagKind.TRACK)
    response = admin_client.post(reverse("admin:papers_tag_add"), {"name": "oral", "kind": "lab"})
    assert response.status_code == 302
    assert Tag.objects.filter(key="oral").count() == 2


@pytest.mark.parametrize("name", ["\u200b", "\u3164", "\ufdfa" * 20])
def test_admin_refuses_author_names_that_are_invisible_or_too_long_once_normalised(
    admin_client, name
):
    response = admin_client.post(reverse("admin:papers_author_add"), {"name": name})
    assert response.status_code == 200
    assert "errornote" in response.content.decode()
    assert not Author.objects.exists()


def test_author_search_and_picker_match_names_spelled_with_other_punctuation(admin_client):
    make_paper("One", authors=["Christopher D Manning", "Christopher Potts"])
    response = admin_client.get(reverse(AUTHORS), {"q": "Christopher D. Manning"})
    assert [a.name for a in response.context["cl"].result_list] == ["Christopher D Manning"]
    picker = admin_client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "papers",
            "model_name": "authorship",
            "field_name": "author",
            "term": "christopher d. manning",
        },
    )
    assert [row["text"] for row in picker.json()["results"]] == ["Christopher D Manning"]


def test_author_search_and_picker_fold_accents(admin_client):
    make_paper("One", authors=["Jürgen Müller", "Ann Other"])
    response = admin_client.get(reverse(AUTHORS), {"q": "jurgen muller"})
    assert [a.name for a in response.context["cl"].result_list] == ["Jürgen Müller"]
    picker = admin_client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "papers",
            "model_name": "authorship",
            "field_name": "author",
            "term": "muller",
        },
    )
    assert [row["text"] for row in picker.json()["results"]] == ["Jürgen Müller"]
