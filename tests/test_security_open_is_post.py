"""Opening a saved search or a notification changes state (the "new" count restarts, the
notification is read) only by the POST its page sends: a GET (a digest's link, a prefetch, a
mail scanner, a link on another site) only goes to the target."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from alerts.models import SavedSearch
from annotations.models import Notification, NotificationKind
from tests.factories import make_comment, make_paper, make_user

pytestmark = pytest.mark.django_db

EARLIER = timezone.now() - timedelta(days=3)


def _search(owner) -> SavedSearch:
    search = SavedSearch.objects.create(owner=owner, name="Diffusion", query="q=diffusion")
    SavedSearch.objects.filter(pk=search.pk).update(last_seen_at=EARLIER)
    return search


def _notification(recipient) -> Notification:
    comment = make_comment(make_user("carol"), make_paper(), "Look, @alice")
    return Notification.objects.create(
        recipient=recipient, comment=comment, kind=NotificationKind.MENTION
    )


def _seen_at(search: SavedSearch):
    search.refresh_from_db()
    return search.last_seen_at


def _read_at(notification: Notification):
    notification.refresh_from_db()
    return notification.read_at


def _open_search_url(search: SavedSearch) -> str:
    return reverse("alerts:open", args=[search.pk])


def _open_notification_url(notification: Notification) -> str:
    return reverse("annotations:notification-open", args=[notification.pk])


def test_getting_a_saved_search_goes_to_its_list_and_keeps_its_count(client, user):
    client.force_login(user)
    search = _search(user)
    response = client.get(_open_search_url(search))
    assert response.status_code == 302 and response["Location"] == search.list_url
    assert _seen_at(search) == EARLIER


def test_posting_open_on_a_saved_search_restarts_its_count(client, user):
    client.force_login(user)
    search = _search(user)
    response = client.post(_open_search_url(search))
    assert response.status_code == 302 and response["Location"] == search.list_url
    assert _seen_at(search) > EARLIER


def test_another_members_saved_search_is_a_404_to_get_and_post(client, user, other_user):
    client.force_login(other_user)
    search = _search(user)
    assert client.get(_open_search_url(search)).status_code == 404
    assert client.post(_open_search_url(search)).status_code == 404
    assert _seen_at(search) == EARLIER


def test_opening_a_saved_search_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    search = _search(user)
    assert client.post(_open_search_url(search)).status_code == 403
    assert _seen_at(search) == EARLIER


def test_the_saved_searches_page_opens_a_search_with_a_post_form(client, user):
    client.force_login(user)
    search = _search(user)
    content = client.get(reverse("alerts:searches")).content.decode()
    assert f'<form method="post" action="{_open_search_url(search)}"' in content
    assert f'href="{_open_search_url(search)}"' not in content


def test_getting_a_notification_goes_to_its_comment_and_leaves_it_unread(client, user):
    client.force_login(user)
    notification = _notification(user)
    response = client.get(_open_notification_url(notification))
    assert response.status_code == 302
    assert response["Location"] == notification.comment.get_absolute_url()
    assert _read_at(notification) is None


def test_posting_open_on_a_notification_marks_it_read(client, user):
    client.force_login(user)
    notification = _notification(user)
    response = client.post(_open_notification_url(notification))
    assert response.status_code == 302
    assert response["Location"] == notification.comment.get_absolute_url()
    assert _read_at(notification) is not None


def test_another_members_notification_is_a_404_to_get_and_post(client, user, other_user):
    client.force_login(other_user)
    notification = _notification(user)
    assert client.get(_open_notification_url(notification)).status_code == 404
    assert client.post(_open_notification_url(notification)).status_code == 404
    assert _read_at(notification) is None


def test_opening_a_notification_needs_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    notification = _notification(user)
    assert client.post(_open_notification_url(notification)).status_code == 403
    assert _read_at(notification) is None


def test_the_notifications_page_opens_one_with_a_post_form(client, user):
    client.force_login(user)
    notification = _notification(user)
    content = client.get(reverse("annotations:notifications")).content.decode()
    assert f'<form method="post" action="{_open_notification_url(notification)}"' in content
    assert f'href="{_open_notification_url(notification)}"' not in content


@pytest.mark.parametrize("method", ["put", "delete"])
def test_opening_answers_only_get_and_post(client, user, method):
    client.force_login(user)
    search, notification = _search(user), _notification(user)
    for url in (_open_search_url(search), _open_notification_url(notification)):
        assert getattr(client, method)(url).status_code == 405
