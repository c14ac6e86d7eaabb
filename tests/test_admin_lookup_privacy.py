"""A changelist's query string cannot filter through another member's private things.

Django's admin allows a lookup through one relation whatever the list filters say
(`/admin/papers/paper/?reading_lists=7`), which would list the papers on a member's private
list, or say which paper a note is on and whose it is."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Visibility
from tests.factories import make_note, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann_private():
    ann = make_user("ann")
    on_list = make_paper("Paper on the secret list")
    noted = make_paper("Paper with a private note")
    make_paper("Another paper")
    return {
        "list": make_reading_list(ann, "Secret", papers=[on_list]),
        "shared": make_reading_list(ann, "Lab", papers=[on_list], visibility=Visibility.SHARED),
        "note": make_note(ann, noted, "mine"),
    }


@pytest.mark.parametrize(
    ("admin_url", "lookup", "private"),
    [
        ("admin:papers_paper_changelist", "reading_lists", "list"),
        ("admin:papers_paper_changelist", "reading_lists__in", "list"),
        ("admin:papers_paper_changelist", "notes", "note"),
        ("admin:auth_user_changelist", "notes", "note"),
        ("admin:auth_user_changelist", "reading_lists", "list"),
    ],
)
def test_a_lookup_through_private_things_is_refused(
    admin_client, ann_private, admin_url, lookup, private
):
    response = admin_client.get(reverse(admin_url), {lookup: ann_private[private].pk})
    assert response.status_code == 400
    assert b"Paper on the secret list" not in response.content
    assert b"Paper with a private note" not in response.content


def test_the_list_filters_still_work(admin_client, ann_private):
    response = admin_client.get(
        reverse("admin:annotations_readinglist_changelist"), {"visibility__exact": "shared"}
    )
    assert response.status_code == 200
    assert b"Lab" in response.content
