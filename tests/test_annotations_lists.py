"""Reading lists: creating, adding papers, ordering, status and priority, sharing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotations.models import ReadingList, ReadingListItem, ReadingStatus, Visibility
from tests.factories import make_paper, make_reading_list, make_user


def _positions(reading_list) -> list[tuple[str, int]]:
    return list(reading_list.items.order_by("position").values_list("paper__title", "position"))


def test_create_list(client, user):
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-create"),
        {"name": "  To  read ", "description": "for the retreat", "visibility": "shared"},
    )
    reading_list = ReadingList.objects.get()
    assert response["Location"] == reading_list.get_absolute_url()
    assert reading_list.name == "To read" and reading_list.is_shared


@pytest.mark.parametrize("name", ["Diffusion", "DIFFUSION", " diffusion "])
def test_duplicate_list_name_in_any_case_is_a_form_error(client, user, name):
    make_reading_list(user, "Diffusion", papers=[make_paper()])
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-create"), {"name": name, "visibility": "private"}
    )
    assert response.status_code == 200
    assert "You already have a list called" in response.content.decode()
    assert ReadingList.objects.count() == 1
    assert ReadingList.objects.get().items.count() == 1


@pytest.mark.parametrize("url_name", ["list-create", "paper-list-add"])
def test_a_list_name_that_would_reorder_the_text_after_it_is_refused(client, user, url_name):
    # A shared list's name is shown inline to the lab ("In the lab: ann (name, reading), bob
    # (...)"): an override (U+202E) would turn the rest of that line around.
    paper = make_paper()
    client.force_login(user)
    name = "Reading \u202egroup"
    if url_name == "list-create":
        client.post(reverse(f"annotations:{url_name}"), {"name": name, "visibility": "shared"})
    else:
        client.post(reverse(f"annotations:{url_name}", args=[paper.pk]), {"new_list_name": name})
    assert not ReadingList.objects.exists()


def test_a_right_to_left_list_name_is_fine(client, user):
    client.force_login(user)
    client.post(reverse("annotations:list-create"), {"name": "קריאה", "visibility": "shared"})
    assert ReadingList.objects.get().name == "קריאה"


def test_another_user_may_reuse_a_list_name(client, user, other_user):
    make_reading_list(other_user, "Diffusion")
    client.force_login(user)
    client.post(reverse("annotations:list-create"), {"name": "diffusion", "visibility": "private"})
    assert ReadingList.objects.filter(owner=user).count() == 1


def test_rename_to_an_existing_name_is_refused(client, user):
    make_reading_list(user, "Alpha")
    beta = make_reading_list(user, "Beta")
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-edit", args=[beta.pk]), {"name": "ALPHA", "visibility": "private"}
    )
    assert response.status_code == 200
    beta.refresh_from_db()
    assert beta.name == "Beta"


def test_add_paper_from_paper_page_to_existing_list(client, user):
    paper = make_paper()
    reading_list = make_reading_list(user, "Queue", papers=[make_paper()])
    client.force_login(user)
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"reading_list": reading_list.pk},
        follow=True,
    )
    assert "Added to “Queue”." in response.content.decode()
    assert reading_list.items.get(paper=paper).position == 1


def test_add_paper_from_paper_page_to_a_new_list(client, user):
    paper = make_paper()
    client.force_login(user)
    client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"reading_list": "", "new_list_name": "Fresh"},
    )
    assert ReadingList.objects.get(owner=user, name="Fresh").items.get().paper == paper


def test_new_list_with_a_taken_name_is_refused_without_losing_anything(client, user):
    paper = make_paper()
    existing = make_reading_list(user, "Fresh", papers=[make_paper()])
    client.force_login(user)
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"new_list_name": "FRESH"},
        follow=True,
    )
    content = response.content.decode()
    assert "You already have a list called" in content
    assert ReadingList.objects.count() == 1 and existing.items.count() == 1
    # What was typed is back in its box (without JavaScript too), to be corrected.
    assert 'name="new_list_name" maxlength="100" value="FRESH"' in content
    htmx = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"new_list_name": "FRESH"},
        HTTP_HX_REQUEST="true",
    )
    assert 'name="new_list_name" maxlength="100" value="FRESH"' in htmx.content.decode()


def test_adding_a_paper_twice_gives_a_clear_message(client, user):
    paper = make_paper()
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    item = reading_list.items.get()
    item.status = ReadingStatus.READING
    item.save()
    client.force_login(user)
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"reading_list": reading_list.pk},
        follow=True,
    )
    assert "is already in “Queue”" in response.content.decode()
    assert reading_list.items.get().status == ReadingStatus.READING


def test_adding_a_paper_twice_from_the_list_page_gives_a_clear_message(client, user):
    paper = make_paper()
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]),
        {"paper": str(paper.pk)},
        follow=True,
    )
    assert "is already in" in response.content.decode()
    assert reading_list.items.count() == 1


def test_a_paper_already_in_the_list_keeps_what_was_typed_in_the_box(client, user):
    paper = make_paper("Kelp forests")
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]),
        {"paper": "Kelp forests"},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert "is already in" in html
    assert 'value="Kelp forests"' in html


def test_choosing_nothing_or_an_unknown_list_is_a_clear_message(client, user, other_user):
    paper = make_paper()
    theirs = make_reading_list(other_user, "Theirs")
    client.force_login(user)
    url = reverse("annotations:paper-list-add", args=[paper.pk])
    response = client.post(url, {}, follow=True)
    assert "Choose a reading list or name a new one." in response.content.decode()
    for bad in [str(theirs.pk), "999999", "abc"]:
        response = client.post(url, {"reading_list": bad}, follow=True)
        assert response.status_code == 200
    assert not theirs.items.exists()
    assert not ReadingListItem.objects.exists()


def test_add_paper_on_list_page_by_number_forum_id_or_url(client, user):
    by_pk, by_id, by_url = make_paper(), make_paper(forum_id="abcXYZ"), make_paper(forum_id="q_r-1")
    reading_list = make_reading_list(user, "Queue")
    client.force_login(user)
    url = reverse("annotations:list-item-add", args=[reading_list.pk])
    client.post(url, {"paper": str(by_pk.pk)})
    client.post(url, {"paper": "abcXYZ"})
    client.post(url, {"paper": "https://openreview.net/forum?id=q_r-1"})
    assert [item.paper for item in reading_list.items.order_by("position")] == [
        by_pk,
        by_id,
        by_url,
    ]


def test_unknown_paper_on_list_page_is_a_form_error(client, user):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper()])
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": "424242"}
    )
    assert response.status_code == 200
    assert "No paper matches “424242”." in response.content.decode()
    assert reading_list.items.count() == 1


def test_add_to_unknown_list_or_paper_is_404(client, user):
    client.force_login(user)
    assert (
        client.post(reverse("annotations:list-item-add", args=[999]), {"paper": "1"}).status_code
        == 404
    )
    assert (
        client.post(
            reverse("annotations:paper-list-add", args=[999]), {"new_list_name": "x"}
        ).status_code
        == 404
    )
    assert not ReadingList.objects.exists()


def test_move_up_and_down_keeps_positions_consecutive(client, user):
    a, b, c = make_paper("A"), make_paper("B"), make_paper("C")
    reading_list = make_reading_list(user, "Queue", papers=[a, b, c])
    client.force_login(user)
    item_c = reading_list.items.get(paper=c)
    url = reverse("annotations:list-item-move", args=[reading_list.pk, item_c.pk])
    client.post(url, {"direction": "up"})
    assert _positions(reading_list) == [("A", 0), ("C", 1), ("B", 2)]
    client.post(url, {"direction": "up"})
    client.post(url, {"direction": "up"})  # already first: nothing changes
    assert _positions(reading_list) == [("C", 0), ("A", 1), ("B", 2)]
    client.post(url, {"direction": "down"})
    assert _positions(reading_list) == [("A", 0), ("C", 1), ("B", 2)]
    # The list page follows the positions, not the order the papers were added in.
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert page.index(">A<") < page.index(">C<") < page.index(">B<")


def test_bad_direction_changes_nothing(client, user):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper("A"), make_paper("B")])
    item = reading_list.items.get(position=1)
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-move", args=[reading_list.pk, item.pk]),
        {"direction": "sideways"},
        follow=True,
    )
    assert "Unknown direction" in response.content.decode()
    assert [p for _, p in _positions(reading_list)] == [0, 1]


def test_removing_an_item_closes_the_gap(client, user):
    a, b, c = make_paper("A"), make_paper("B"), make_paper("C")
    reading_list = make_reading_list(user, "Queue", papers=[a, b, c])
    client.force_login(user)
    item_b = reading_list.items.get(paper=b)
    client.post(reverse("annotations:list-item-remove", args=[reading_list.pk, item_b.pk]))
    assert _positions(reading_list) == [("A", 0), ("C", 1)]
    client.post(
        reverse("annotations:paper-list-add", args=[b.pk]), {"reading_list": reading_list.pk}
    )
    assert _positions(reading_list) == [("A", 0), ("C", 1), ("B", 2)]


def test_item_of_another_list_cannot_be_reached_through_own_list(client, user, other_user):
    mine = make_reading_list(user, "Mine", papers=[make_paper()])
    theirs = make_reading_list(other_user, "Theirs", papers=[make_paper()])
    their_item = theirs.items.get()
    client.force_login(user)
    response = client.post(reverse("annotations:list-item-remove", args=[mine.pk, their_item.pk]))
    assert response.status_code == 404
    assert theirs.items.count() == 1


def test_item_of_one_own_list_cannot_be_reached_through_another(client, user):
    first = make_reading_list(user, "First", papers=[make_paper()])
    second = make_reading_list(user, "Second", papers=[make_paper()])
    item = second.items.get()
    client.force_login(user)
    for action, data in [("remove", {}), ("move", {"direction": "up"}), ("status", {})]:
        url = reverse(f"annotations:list-item-{action}", args=[first.pk, item.pk])
        assert client.post(url, data).status_code == 404, action
    assert second.items.get() == item and first.items.count() == 1


def test_owners_list_page_offers_adding_papers_and_setting_their_status(client, user):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper("Queued")])
    client.force_login(user)
    response = client.get(reading_list.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    add_url = reverse("annotations:list-item-add", args=[reading_list.pk])
    assert f'action="{add_url}"' in content and 'name="paper"' in content
    for label in ["To read", "Reading", "Read", "High", "Medium", "Low"]:
        assert f">{label}</option>" in content


def test_list_page_says_how_many_more_authors_a_paper_has(client, user):
    paper = make_paper("Crowded", authors=[f"Person {n} Example" for n in range(12)])
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    client.force_login(user)
    response = client.get(reading_list.get_absolute_url())
    assert response.status_code == 200
    assert "… and " in response.content.decode()
    assert response.context["items"][0].paper.more_authors > 0


def test_set_status_and_priority(client, user):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper()])
    item = reading_list.items.get()
    client.force_login(user)
    url = reverse("annotations:list-item-status", args=[reading_list.pk, item.pk])
    client.post(url, {"status": "reading", "priority": "1"})
    item.refresh_from_db()
    assert (item.status, item.priority) == ("reading", 1)
    client.post(url, {"status": "read", "priority": ""})
    item.refresh_from_db()
    assert (item.status, item.priority) == ("read", None)


@pytest.mark.parametrize(
    "data", [{"status": "finished"}, {"status": "read", "priority": "9"}, {"priority": "x"}]
)
def test_bad_status_or_priority_is_a_message_and_keeps_the_saved_value(client, user, data):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper()])
    item = reading_list.items.get()
    item.status, item.priority = ReadingStatus.READING, 2
    item.save()
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-status", args=[reading_list.pk, item.pk]), data, follow=True
    )
    assert response.status_code == 200
    assert "Not saved" in response.content.decode()
    item.refresh_from_db()
    assert (item.status, item.priority) == ("reading", 2)


def test_htmx_item_change_returns_the_items_fragment(client, user):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper("A"), make_paper("B")])
    item = reading_list.items.get(position=1)
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-move", args=[reading_list.pk, item.pk]),
        {"direction": "up"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="list-items",
    )
    content = response.content.decode()
    assert 'id="list-items"' in content and "<html" not in content and "Moved" in content


def test_htmx_remove_from_paper_page_returns_the_paper_lists_fragment(client, user):
    paper = make_paper()
    reading_list = make_reading_list(user, "Queue", papers=[paper])
    item = reading_list.items.get()
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-remove", args=[reading_list.pk, item.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="paper-lists",
    )
    assert 'id="paper-lists"' in response.content.decode()


def test_list_page_has_bounded_queries(client, user, django_assert_max_num_queries):
    papers = [
        make_paper(
            f"Paper {n}", authors=["Ada Lovelace", "Alan Turing"], tags=[("ICLR 2024", "venue")]
        )
        for n in range(15)
    ]
    reading_list = make_reading_list(user, "Big", papers=papers)
    client.force_login(user)
    # session, user, list (+owner), items with papers, the first authorships+authors (the
    # page shows no tags), the header's unread notifications, the list's highlights
    with django_assert_max_num_queries(7):
        response = client.get(reading_list.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert [content.index(f"Paper {n}<") for n in range(15)] == sorted(
        content.index(f"Paper {n}<") for n in range(15)
    )
    assert "Ada Lovelace" in content


def test_shared_lists_index_shows_only_shared_lists(client, user, other_user):
    make_reading_list(other_user, "Public reading", visibility=Visibility.SHARED)
    make_reading_list(other_user, "Secret reading")
    client.force_login(user)
    content = client.get(reverse("annotations:lists-shared")).content.decode()
    assert "Public reading" in content and "Secret reading" not in content


def test_shared_lists_index_counts_papers_and_shows_the_last_changed_first(client, user):
    older = make_reading_list(
        user, "Older list", papers=[make_paper(), make_paper()], visibility=Visibility.SHARED
    )
    make_reading_list(user, "Newer list", visibility=Visibility.SHARED)
    client.force_login(user)
    client.post(  # adding a paper changes the older list: it comes first now
        reverse("annotations:list-item-add", args=[older.pk]), {"paper": str(make_paper().pk)}
    )
    response = client.get(reverse("annotations:lists-shared"))
    assert response.status_code == 200
    content = response.content.decode()
    assert content.index("Older list") < content.index("Newer list")
    assert "3 papers" in content and "0 papers" in content


def test_my_lists_shows_only_own_lists_with_counts(client, user, other_user):
    make_reading_list(user, "Mine", papers=[make_paper(), make_paper()])
    make_reading_list(other_user, "Theirs", visibility=Visibility.SHARED)
    client.force_login(user)
    content = client.get(reverse("annotations:lists")).content.decode()
    assert "Mine" in content and "2 papers" in content and "Theirs" not in content


def test_list_names_and_descriptions_are_escaped(client, user):
    attack = "<img src=x onerror=alert(1)>"
    reading_list = make_reading_list(
        user, attack, description=attack, visibility=Visibility.SHARED, papers=[make_paper()]
    )
    viewer = make_user("viewer")
    for who in [user, viewer]:
        client.force_login(who)
        for url in [
            reading_list.get_absolute_url(),
            reverse("annotations:lists-shared"),
            reverse("annotations:lists"),
        ]:
            assert "<img src=x" not in client.get(url).content.decode()


def test_deleting_a_list_deletes_its_items_only(client, user):
    paper = make_paper()
    doomed = make_reading_list(user, "Doomed", papers=[paper])
    kept = make_reading_list(user, "Kept", papers=[paper])
    client.force_login(user)
    client.post(reverse("annotations:list-delete", args=[doomed.pk]), {"confirmed": "yes"})
    assert list(ReadingListItem.objects.values_list("reading_list", flat=True)) == [kept.pk]


@pytest.mark.parametrize("raw", ["99999999999999999999999", "-1", "0", "   ", "id=", "'; drop"])
def test_odd_paper_references_are_form_errors(client, user, raw):
    reading_list = make_reading_list(user, "Queue", papers=[make_paper()])
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": raw}
    )
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    assert reading_list.items.count() == 1


def test_huge_ids_in_urls_and_forms_are_404_or_form_errors(client, user):
    huge = 99999999999999999999
    paper = make_paper()
    client.force_login(user)
    assert client.get(reverse("annotations:list-detail", args=[huge])).status_code == 404
    assert client.get(reverse("annotations:note-edit", args=[huge])).status_code == 404
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]), {"reading_list": str(huge)}
    )
    assert response.status_code == 302
    assert not ReadingListItem.objects.exists()


@pytest.mark.parametrize("url_name", ["list-item-remove", "list-item-move", "list-item-status"])
def test_a_huge_list_id_before_a_real_item_is_404(client, user, url_name):
    item = make_reading_list(user, "Queue", papers=[make_paper()]).items.get()
    client.force_login(user)
    url = reverse(f"annotations:{url_name}", args=[99999999999999999999, item.pk])
    response = client.post(url, {"direction": "up", "status": ReadingStatus.READ})
    assert response.status_code == 404
    assert ReadingListItem.objects.get() == item


def test_a_same_named_list_saved_meanwhile_is_a_form_error_not_a_500(client, user, monkeypatch):
    from annotations import forms

    make_reading_list(user, "Raced")
    # Simulate the other request winning between validation and save.
    monkeypatch.setattr(forms, "_clean_list_name", lambda name, **kwargs: name.strip())
    client.force_login(user)
    response = client.post(
        reverse("annotations:list-create"), {"name": "raced", "visibility": "private"}
    )
    assert response.status_code == 200
    assert "You already have a list called" in response.content.decode()
    assert ReadingList.objects.count() == 1


def test_my_lists_and_the_list_page_say_which_list_save_puts_papers_in(client, user, other_user):
    saved = make_reading_list(user, "Thesis", is_default=True, visibility=Visibility.SHARED)
    make_reading_list(user, "Other")
    client.force_login(user)
    mine = client.get(reverse("annotations:lists")).content.decode()
    assert mine.count("default for Save") == 1
    assert "default for Save" in client.get(saved.get_absolute_url()).content.decode()
    # Another member reading the shared list is not told about its owner's Save button.
    client.force_login(other_user)
    assert "default for Save" not in client.get(saved.get_absolute_url()).content.decode()


def test_after_an_htmx_move_the_keyboard_stays_on_the_moved_papers_button(client, user):
    a, b, c = make_paper("A"), make_paper("B"), make_paper("C")
    reading_list = make_reading_list(user, "Queue", papers=[a, b, c])
    item_b = reading_list.items.get(paper=b)
    client.force_login(user)
    url = reverse("annotations:list-item-move", args=[reading_list.pk, item_b.pk])

    def focus_of(direction: str) -> tuple[str, str]:
        """The autofocused button's direction, and the id of the item it is in."""
        content = client.post(url, {"direction": direction}, HTTP_HX_REQUEST="true")
        html = content.content.decode()
        button = re.search(r'value="(up|down)"[^>]*autofocus', html)
        assert button is not None
        item = html.rindex('id="item-', 0, button.start())
        return button.group(1), html[item + 4 : html.index('"', item + 4)]

    # Moved down, B is last: "down" is now disabled, so its "up" button takes the focus.
    assert focus_of("down") == ("up", f"item-{item_b.pk}")
    assert focus_of("up") == ("up", f"item-{item_b.pk}")  # middle again: both enabled
    assert focus_of("up") == ("down", f"item-{item_b.pk}")  # first: "up" is disabled
    # Without htmx, or on another action, nothing is autofocused.
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert "autofocus" not in page


def test_each_items_controls_name_their_paper_for_screen_readers(client, user):
    reading_list = make_reading_list(
        user, "Queue", papers=[make_paper("Alpha"), make_paper("Beta")]
    )
    client.force_login(user)
    page = client.get(reading_list.get_absolute_url()).content.decode()
    for title in ("Alpha", "Beta"):
        assert f'aria-label="Move “{title}” up"' in page
        assert f'aria-label="Move “{title}” down"' in page
        assert f'<span class="visually-hidden"> “{title}” from this list</span>' in page
        # One verb per action: "Set status" (as in the results), no longer "Save".
        assert f'Set status<span class="visually-hidden"> and priority of “{title}”</span>' in page
