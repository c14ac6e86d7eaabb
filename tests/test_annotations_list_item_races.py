"""Moving an item or changing its status while it is removed (issue 43, finding 13): the
page answers 404, as for an item that never existed, never a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations import services
from annotations.models import ReadingListItem
from annotations.views import lists as list_views
from tests.factories import make_paper, make_reading_list

ACTIONS = [("move", {"direction": "up"}), ("status", {"status": "read", "priority": "1"})]


@pytest.fixture
def queue(user):
    return make_reading_list(user, "Queue", papers=[make_paper("A"), make_paper("B")])


def _url(reading_list, item, action: str) -> str:
    return reverse(f"annotations:list-item-{action}", args=[reading_list.pk, item.pk])


def _titles(reading_list) -> list[tuple[str, str, int | None]]:
    return list(
        reading_list.items.order_by("position").values_list("paper__title", "status", "priority")
    )


@pytest.fixture
def removed_after_lookup(monkeypatch):
    """Another request removes the item between the view's lookup and its write."""
    # An editor's move and a reader's own status look the item up each their way.
    for name in ["_get_item_for_editor", "_get_item_for_reader"]:
        monkeypatch.setattr(list_views, name, _then_removed(getattr(list_views, name)))


def _then_removed(looked_up):
    def lookup_then_removed(request, pk, item_pk):
        item = looked_up(request, pk, item_pk)
        services.remove_item(item=ReadingListItem.objects.get(pk=item.pk))
        return item

    return lookup_then_removed


@pytest.mark.parametrize(("action", "data"), ACTIONS)
def test_an_item_removed_before_the_request_is_404(client, user, queue, action, data):
    item = queue.items.get(paper__title="B")
    client.force_login(user)
    client.post(_url(queue, item, "remove"))
    assert client.post(_url(queue, item, action), data).status_code == 404
    assert _titles(queue) == [("A", "to_read", None)]


@pytest.mark.parametrize(("action", "data"), ACTIONS)
def test_an_item_removed_during_the_request_is_404(
    client, user, queue, removed_after_lookup, action, data
):
    item = queue.items.get(paper__title="B")
    client.force_login(user)
    response = client.post(_url(queue, item, action), data)
    assert response.status_code == 404
    assert _titles(queue) == [("A", "to_read", None)]


def test_positive_control_moving_and_setting_the_status_of_an_existing_item(client, user, queue):
    item = queue.items.get(paper__title="B")
    client.force_login(user)
    assert client.post(_url(queue, item, "move"), {"direction": "up"}).status_code == 302
    assert client.post(_url(queue, item, "status"), dict(ACTIONS)["status"]).status_code == 302
    assert _titles(queue) == [("B", "read", 1), ("A", "to_read", None)]
