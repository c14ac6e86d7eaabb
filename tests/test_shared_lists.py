"""Lists the lab edits together (issue 41, point 1): sharing modes, editors' edits, each
member's own status, the activity and the followers' notifications, concurrent reordering."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations import services
from annotations.models import (
    ListChange,
    ListEditor,
    MemberReading,
    Notification,
    NotificationKind,
    ReadingListItem,
    ReadingStatus,
    Visibility,
)
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return {name: make_user(name) for name in ("olga", "ed", "rita")}


def _list(owner, mode, *, editors=(), papers=()):
    reading_list = make_reading_list(owner, "Thursday", papers=papers, visibility=mode)
    for editor in editors:
        ListEditor.objects.create(reading_list=reading_list, user=editor)
    return reading_list


def _add(client, reading_list, paper):
    return client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": str(paper.pk)}
    )


@pytest.mark.parametrize(
    ("mode", "named", "reads", "edits"),
    [
        (Visibility.PRIVATE, False, 404, 404),
        (Visibility.SHARED, False, 200, 404),
        (Visibility.LAB_EDIT, False, 200, 302),
        (Visibility.EDITORS, True, 200, 302),
        (Visibility.EDITORS, False, 404, 404),
    ],
)
def test_each_mode_lets_a_colleague_read_and_edit_as_it_says(
    client, people, mode, named, reads, edits
):
    reading_list = _list(people["olga"], mode, editors=[people["ed"]] if named else [])
    client.force_login(people["ed"])
    assert client.get(reading_list.get_absolute_url()).status_code == reads
    assert _add(client, reading_list, make_paper("Posted directly")).status_code == edits
    assert reading_list.items.exists() == (edits == 302)


def test_the_owner_always_edits(client, people):
    reading_list = _list(people["olga"], Visibility.SHARED)
    client.force_login(people["olga"])
    assert _add(client, reading_list, make_paper("Mine")).status_code == 302
    assert reading_list.items.get().added_by == people["olga"]


def test_a_reader_gets_no_edit_controls_and_an_editor_does(client, people):
    paper = make_paper("Shared paper")
    reading_list = _list(people["olga"], Visibility.SHARED, papers=[paper])
    client.force_login(people["rita"])
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert "read-only" in page and "Add paper" not in page and "Save note" not in page
    reading_list.visibility = Visibility.LAB_EDIT
    reading_list.save()
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert "Add paper" in page and "Save note" in page and "data-drag-reorder" in page


def test_a_reader_cannot_remove_move_or_note_by_posting(client, people):
    paper = make_paper("Shared paper")
    reading_list = _list(people["olga"], Visibility.SHARED, papers=[paper, make_paper("Two")])
    item = reading_list.items.get(paper=paper)
    client.force_login(people["rita"])
    for action, data in [("remove", {}), ("move", {"direction": "down"}), ("note", {"note": "x"})]:
        url = reverse(f"annotations:list-item-{action}", args=[reading_list.pk, item.pk])
        assert client.post(url, data).status_code == 404
    item.refresh_from_db()
    assert (item.position, item.note) == (0, "")
    # Positive control: an editor of the same list may.
    ListEditor.objects.create(reading_list=reading_list, user=people["ed"])
    reading_list.visibility = Visibility.EDITORS
    reading_list.save()
    client.force_login(people["ed"])
    url = reverse("annotations:list-item-note", args=[reading_list.pk, item.pk])
    assert client.post(url, {"note": "Read §3"}).status_code == 302
    item.refresh_from_db()
    assert item.note == "Read §3"


def test_every_item_shows_who_added_it(client, people):
    reading_list = _list(people["olga"], Visibility.LAB_EDIT, papers=[make_paper("Old one")])
    client.force_login(people["ed"])
    _add(client, reading_list, make_paper("Ed's pick"))
    added = dict(reading_list.items.values_list("paper__title", "added_by__username"))
    assert added == {"Old one": None, "Ed's pick": "ed"}  # factory rows: shown as the owner's
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert '<span class="added-by">ed</span>' in page
    assert '<span class="added-by">olga</span>' in page


def test_each_member_keeps_their_own_status(client, people):
    paper = make_paper("Common paper")
    reading_list = _list(people["olga"], Visibility.SHARED, papers=[paper])
    item = reading_list.items.get()
    url = reverse("annotations:list-item-status", args=[reading_list.pk, item.pk])
    client.force_login(people["ed"])
    assert client.post(url, {"status": "read"}).status_code == 302
    client.force_login(people["rita"])
    client.post(url, {"status": "reading"})
    item.refresh_from_db()
    assert item.status == ReadingStatus.TO_READ  # the owner's is unchanged
    mine = dict(MemberReading.objects.values_list("member__username", "status"))
    assert mine == {"ed": "read", "rita": "reading"}
    page = client.get(reading_list.get_absolute_url()).content.decode()
    assert "read by 1 of 3" in page and "reading now: rita" in page
    assert '<option value="reading" selected>' in page  # rita's own, not the owner's


def test_edits_show_in_the_activity_and_notify_the_followers_but_not_the_editor(client, people):
    paper = make_paper("Noted paper")
    reading_list = _list(
        people["olga"], Visibility.EDITORS, editors=[people["ed"], people["rita"]], papers=[paper]
    )
    item = reading_list.items.get()
    client.force_login(people["ed"])
    client.post(
        reverse("annotations:list-item-note", args=[reading_list.pk, item.pk]), {"note": "Key"}
    )
    told = Notification.objects.filter(kind=NotificationKind.LIST_CHANGE)
    assert sorted(told.values_list("recipient__username", flat=True)) == ["olga", "rita"]
    assert ListChange.objects.get().kind == "noted"
    client.force_login(people["rita"])
    page = client.get(reverse("annotations:activity")).content.decode()
    assert "noted" in page and "Noted paper" in page
    assert "Noted paper" in client.get(reverse("annotations:notifications")).content.decode()


def test_a_named_editors_list_stays_out_of_a_strangers_activity_and_notifications(client, people):
    paper = make_paper("Quiet paper")
    reading_list = _list(people["olga"], Visibility.EDITORS, editors=[people["ed"]])
    services.add_paper_to_list(reading_list=reading_list, paper=paper, by=people["ed"])
    client.force_login(people["rita"])
    assert "Quiet paper" not in client.get(reverse("annotations:activity")).content.decode()
    assert not Notification.objects.filter(recipient=people["rita"]).exists()
    # Positive control: the owner sees it and was told.
    client.force_login(people["olga"])
    assert "Quiet paper" in client.get(reverse("annotations:activity")).content.decode()
    assert Notification.objects.filter(recipient=people["olga"]).count() == 1


def test_a_drop_moves_an_item_to_its_position(client, people):
    papers = [make_paper(f"P{n}") for n in range(4)]
    reading_list = _list(people["olga"], Visibility.LAB_EDIT, papers=papers)
    client.force_login(people["ed"])
    item = reading_list.items.get(paper=papers[3])
    url = reverse("annotations:list-item-move", args=[reading_list.pk, item.pk])
    assert client.post(url, {"position": "1"}).status_code == 302
    order = list(reading_list.items.order_by("position").values_list("paper__title", flat=True))
    assert order == ["P0", "P3", "P1", "P2"]


def test_exports_follow_the_mode(client, people):
    reading_list = _list(people["olga"], Visibility.EDITORS, papers=[make_paper("Exported")])
    url = reverse("annotations:list-export-csv", args=[reading_list.pk])
    client.force_login(people["rita"])
    assert client.get(url).status_code == 404
    ListEditor.objects.create(reading_list=reading_list, user=people["rita"])
    response = client.get(url)
    assert response.status_code == 200 and b"Exported" in b"".join(response.streaming_content)


def test_the_admin_shows_a_curator_only_the_lists_they_may_read(admin_client, people):
    hidden = _list(people["olga"], Visibility.EDITORS)
    lab = make_reading_list(people["olga"], "Lab edits", visibility=Visibility.LAB_EDIT)
    page = admin_client.get(reverse("admin:annotations_readinglist_changelist")).content.decode()
    assert lab.name in page and f"/{hidden.pk}/change/" not in page


def test_existing_items_are_added_by_their_owner_after_the_migration(people):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotations.migrations.0014_items_added_by_owner")
    reading_list = make_reading_list(people["olga"], papers=[make_paper("Before")])
    migration.added_by_owner(apps, None)
    assert ReadingListItem.objects.get(reading_list=reading_list).added_by == people["olga"]


@pytest.mark.django_db(transaction=True)
def test_two_editors_reordering_at_once_lose_and_double_nothing(shared_database, people):
    papers = [make_paper(f"R{n}") for n in range(8)]
    reading_list = _list(people["olga"], Visibility.LAB_EDIT, papers=papers)
    items = list(reading_list.items.order_by("position"))
    shared_database.share()

    def reorder(moves):
        def work():
            for item_pk, to in moves:
                item = ReadingListItem.objects.select_related("reading_list", "paper").get(
                    pk=item_pk
                )
                services.move_item(item=item, to=to, by=people["ed"])

        return work

    shared_database.at_once(
        [
            reorder([(items[n].pk, 7 - n) for n in range(8)] * 3),
            reorder([(items[7 - n].pk, n) for n in range(8)] * 3),
        ]
    )
    rows = shared_database.read(
        lambda: list(
            ReadingListItem.objects.filter(reading_list=reading_list).values_list(
                "paper_id", "position"
            )
        )
    )
    assert sorted(position for _, position in rows) == list(range(8))
    assert sorted(paper for paper, _ in rows) == sorted(p.pk for p in papers)
