"""Annotation admin: shared reading lists, comment moderation, private things kept out."""

from __future__ import annotations

import datetime

import pytest
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotations.models import Comment, Note, ReadingList, ReadingListItem, Visibility
from tests.factories import make_paper

XSS = "<img src=x onerror=alert(1)>"
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"

pytestmark = pytest.mark.django_db


# Local factories: annotation objects are only needed by these admin tests.


def make_note(owner, paper, body: str = "A thought.") -> Note:
    return Note.objects.create(owner=owner, paper=paper, body=body)


def make_reading_list(owner, name: str = "To read", papers=(), **fields) -> ReadingList:
    reading_list = ReadingList.objects.create(owner=owner, name=name, **fields)
    for position, paper in enumerate(papers):
        ReadingListItem.objects.create(reading_list=reading_list, paper=paper, position=position)
    return reading_list


def make_comment(author, paper, body: str = "Nice result.", **fields) -> Comment:
    return Comment.objects.create(author=author, paper=paper, body=body, **fields)


def changelist(admin_client, model: str, **params):
    return admin_client.get(reverse(f"admin:annotations_{model}_changelist"), params)


def listed(response) -> list:
    return list(response.context["cl"].result_list)


# --- every registered model has a working changelist ------------------------------------


def registered_changelists() -> list[str]:
    return sorted(
        f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"
        for model in admin.site._registry
    )


@pytest.mark.parametrize("url_name", registered_changelists())
def test_every_changelist_renders(admin_client, user, url_name):
    paper = make_paper("Rendered", authors=["Ada Lovelace"])
    make_note(user, paper)
    make_reading_list(user, papers=[paper])
    make_comment(user, paper)
    assert admin_client.get(reverse(url_name)).status_code == 200


@pytest.mark.parametrize(
    "url_name",
    [
        "admin:annotations_readinglist_changelist",
        "admin:annotations_comment_changelist",
    ],
)
def test_non_staff_users_are_refused(client, user, url_name):
    client.force_login(user)
    response = client.get(reverse(url_name))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_paper_fields_use_autocomplete_not_a_giant_select(admin_client, user):
    paper = make_paper("Picked")
    for n in range(5):
        make_paper(f"Not picked {n}")
    comment = make_comment(user, paper)
    response = admin_client.get(reverse("admin:annotations_comment_change", args=[comment.pk]))
    form = response.context["adminform"].form
    # The admin wraps the picker to add its "+" and pencil links.
    assert isinstance(form.fields["paper"].widget.widget, AutocompleteSelect)
    # Only the chosen paper is rendered as an option, whatever the catalogue size.
    content = response.content.decode()
    start = content.index('<select name="paper"')
    paper_select = content[start : content.index("</select>", start)]
    assert paper_select.count("<option") <= 2 and "Not picked" not in paper_select


# --- private notes and lists -------------------------------------------------------------


def test_notes_are_not_in_the_admin_even_for_superusers(admin_client, user):
    note = make_note(user, make_paper("Noted"), "my private thought")
    assert Note not in admin.site._registry
    for path in ["/admin/annotations/note/", f"/admin/annotations/note/{note.pk}/change/"]:
        response = admin_client.get(path, follow=True)
        assert "my private thought" not in response.content.decode()
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert "/admin/annotations/note/" not in index


def test_superusers_see_shared_lists_and_their_own_but_no_one_elses_private_list(
    admin_client, admin_user, user
):
    make_reading_list(user, "Alice's secret list")
    make_reading_list(user, "Alice's shared list", visibility=Visibility.SHARED)
    make_reading_list(admin_user, "Admin's own list")
    names = {r.name for r in listed(changelist(admin_client, "readinglist"))}
    assert names == {"Alice's shared list", "Admin's own list"}


def test_another_members_private_list_cannot_be_opened_in_the_admin(admin_client, user):
    secret = make_reading_list(user, "Alice's secret list", [make_paper("Secret paper")])
    response = admin_client.get(
        reverse("admin:annotations_readinglist_change", args=[secret.pk]), follow=True
    )
    assert "Secret paper" not in response.content.decode()
    assert "Alice's secret list" not in response.content.decode()


# --- reading lists ----------------------------------------------------------------------


def test_reading_list_shows_item_count_and_filters_by_visibility(admin_client, user):
    papers = [make_paper(f"Paper {n}") for n in range(3)]
    make_reading_list(user, "Shared one", papers, visibility=Visibility.SHARED)
    make_reading_list(user, "Private one", papers[:1])
    response = changelist(admin_client, "readinglist", visibility__exact=Visibility.SHARED)
    assert [(r.name, r.item_count) for r in listed(response)] == [("Shared one", 3)]


def test_reading_list_search_by_owner(admin_client, user, other_user):
    make_reading_list(user, "Alice's list", visibility=Visibility.SHARED)
    make_reading_list(other_user, "Bob's list", visibility=Visibility.SHARED)
    response = changelist(admin_client, "readinglist", q="bob")
    assert [r.name for r in listed(response)] == ["Bob's list"]


def test_reading_list_changelist_query_count_is_bounded(
    admin_client, user, django_assert_max_num_queries
):
    for n in range(30):
        make_reading_list(
            user, f"List {n}", [make_paper(f"Paper {n}")], visibility=Visibility.SHARED
        )
    # session, user, count, page of lists with owner and item count
    with django_assert_max_num_queries(4):
        response = changelist(admin_client, "readinglist")
    assert response.status_code == 200
    assert len(listed(response)) == 30
    assert "List 29" in response.content.decode()


def test_reading_list_change_form_shows_items_inline(admin_client, user):
    reading_list = make_reading_list(
        user, "Ours", [make_paper("In the list")], visibility=Visibility.SHARED
    )
    response = admin_client.get(
        reverse("admin:annotations_readinglist_change", args=[reading_list.pk])
    )
    assert response.status_code == 200
    assert b"items-TOTAL_FORMS" in response.content
    assert b"In the list" in response.content


def test_reading_list_name_markup_is_escaped(admin_client, user):
    make_reading_list(user, XSS, visibility=Visibility.SHARED)
    content = changelist(admin_client, "readinglist").content.decode()
    assert XSS not in content
    assert ESCAPED in content


# --- comments ---------------------------------------------------------------------------


def moderate(admin_client, action: str, comments: list[Comment]):
    return admin_client.post(
        reverse("admin:annotations_comment_changelist"),
        {"action": action, "_selected_action": [c.pk for c in comments]},
        follow=True,
    )


def test_remove_action_soft_deletes_and_records_the_moderator(admin_client, admin_user, user):
    paper = make_paper("Discussed")
    rude = make_comment(user, paper, "rude")
    kind = make_comment(user, paper, "kind")
    response = moderate(admin_client, "remove_comments", [rude])
    rude.refresh_from_db()
    kind.refresh_from_db()
    assert rude.removed_at is not None and rude.removed_by == admin_user
    assert rude.body == "rude"  # soft: the text is kept for the record
    assert kind.removed_at is None
    assert "Removed 1 comment." in [str(m) for m in get_messages(response.wsgi_request)]


def test_removing_again_keeps_the_first_removal(admin_client, user, other_user):
    earlier = timezone.now() - datetime.timedelta(days=1)
    comment = make_comment(user, make_paper("P"), removed_at=earlier, removed_by=other_user)
    moderate(admin_client, "remove_comments", [comment])
    comment.refresh_from_db()
    assert (comment.removed_at, comment.removed_by) == (earlier, other_user)


def test_restore_action_brings_a_comment_back(admin_client, user, other_user):
    comment = make_comment(user, make_paper("P"), removed_at=timezone.now(), removed_by=other_user)
    response = moderate(admin_client, "restore_comments", [comment])
    comment.refresh_from_db()
    assert (comment.removed_at, comment.removed_by) == (None, None)
    assert "Restored 1 comment." in [str(m) for m in get_messages(response.wsgi_request)]


def test_comment_removed_filter(admin_client, user):
    paper = make_paper("P")
    make_comment(user, paper, "visible")
    make_comment(user, paper, "gone", removed_at=timezone.now())
    assert [c.body for c in listed(changelist(admin_client, "comment", removed="yes"))] == ["gone"]
    assert [c.body for c in listed(changelist(admin_client, "comment", removed="no"))] == [
        "visible"
    ]


def test_comment_search_by_body_paper_and_author(admin_client, user, other_user):
    make_comment(user, make_paper("Diffusion Models"), "lovely")
    make_comment(other_user, make_paper("Counting Fish"), "dubious")
    for query, body in [("dubious", "dubious"), ("diffusion", "lovely"), ("bob", "dubious")]:
        assert [c.body for c in listed(changelist(admin_client, "comment", q=query))] == [body]


def test_comment_body_is_escaped(admin_client, user):
    make_comment(user, make_paper("P"), XSS)
    content = changelist(admin_client, "comment").content.decode()
    assert XSS not in content
    assert ESCAPED in content


def test_comment_changelist_query_count_is_bounded(
    admin_client, user, other_user, django_assert_max_num_queries
):
    for n in range(30):
        make_comment(
            user,
            make_paper(f"Paper {n}"),
            f"comment {n}",
            removed_at=timezone.now() if n % 2 else None,
            removed_by=other_user if n % 2 else None,
        )
    # session, user, count, page joined to author, paper and remover,
    # date-hierarchy bounds, date-hierarchy days
    with django_assert_max_num_queries(6):
        response = changelist(admin_client, "comment")
    assert response.status_code == 200
    assert len(listed(response)) == 30
    assert "comment 29" in response.content.decode()


def test_reading_list_change_form_queries_do_not_grow_with_its_items(admin_client, user):
    def queries_for(count: int) -> int:
        papers = [make_paper(f"Paper {count}-{n}") for n in range(count)]
        reading_list = make_reading_list(user, f"L{count}", papers, visibility=Visibility.SHARED)
        url = reverse("admin:annotations_readinglist_change", args=[reading_list.pk])
        with CaptureQueriesContext(connection) as captured:
            response = admin_client.get(url)
        assert response.status_code == 200
        assert response.content.decode().count(f"selected>Paper {count}-") == count
        return len(captured)

    assert queries_for(30) == queries_for(2)


@pytest.mark.parametrize("forged", ["abc", "99999999999999999999"])
def test_a_forged_paper_in_the_comment_form_is_a_form_error(admin_client, user, forged):
    comment = make_comment(user, make_paper("Discussed"))
    url = reverse("admin:annotations_comment_change", args=[comment.pk])
    response = admin_client.post(url, {"author": user.pk, "paper": forged, "body": "Hi"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
