"""Finding 6 of issue 43: adding a paper by link to a private reading list once wrote the list's
name into the import history (`Add paper to “<list name>” (<member>)`), which every curator reads
and searches in admin. The history now says a member added a paper to a reading list; a data
migration rewrites the rows written before."""

from __future__ import annotations

import importlib

import pytest
import respx
from django.apps import apps
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from papers.models import ImportRun
from papers.sources import single
from tests.factories import make_reading_list, make_user
from tests.link_lookup_helpers import (
    ARXIV,
    SCHRODINGER,
    arxiv_answer,
    run_worker,
    use_test_services,
)

pytestmark = pytest.mark.django_db

SECRET = "Grant rejection rebuttal for Zephyr"
migration = importlib.import_module("papers.migrations.0025_import_history_without_list_names")


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    use_test_services(settings)
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


def log_in_a_curator(client) -> None:
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="view_importrun"))
    client.force_login(curator)


@respx.mock
def test_a_curator_sees_who_added_a_paper_never_the_private_lists_name(client, user):
    respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    private = make_reading_list(user, SECRET, visibility="private")
    client.force_login(user)
    added = client.post(
        reverse("annotations:list-item-add", args=[private.pk]), {"paper": "2402.01234"}
    )
    assert added.status_code == 303  # queued: the worker fetches it and puts it on the list
    run_worker()
    assert private.items.count() == 1
    run = ImportRun.objects.get()
    log_in_a_curator(client)

    pages = {
        "list": client.get(reverse("admin:papers_importrun_changelist")),
        "change": client.get(reverse("admin:papers_importrun_change", args=[run.pk])),
        "search by name": client.get(reverse("admin:papers_importrun_changelist"), {"q": "Zephyr"}),
        "search by member": client.get(
            reverse("admin:papers_importrun_changelist"), {"q": user.username}
        ),
    }

    for name, page in pages.items():
        assert page.status_code == 200, name
        # (The search box shows back what was searched for, hence "rebuttal".)
        assert "rebuttal" not in page.text, name
    assert "Zephyr" not in pages["list"].text + pages["change"].text
    # Positive control: the member and what they did are there, and found by their name.
    assert f"Add paper to a reading list ({user.username})" in pages["change"].text
    assert f"Add paper to a reading list ({user.username})" in pages["list"].text
    change_url = reverse("admin:papers_importrun_change", args=[run.pk])
    assert change_url not in pages["search by name"].text
    assert change_url in pages["search by member"].text
    assert run.invoked_by == f"Add paper to a reading list ({user.username})"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (f"Add paper to “{SECRET}” (alice)", "Add paper to a reading list (alice)"),
        # A name holding the quotes and a parenthesis of its own.
        ("Add paper to “Mine” (draft) ” (bob.b-1)", "Add paper to a reading list (bob.b-1)"),
        ("Add paper to “cut short by the 200 characters", "Add paper to a reading list"),
    ],
)
def test_the_migration_rewrites_history_that_names_a_list(old, new):
    run = ImportRun.objects.create(started_at=timezone.now(), invoked_by=old)
    others = [
        ImportRun.objects.create(started_at=timezone.now(), invoked_by=text)
        for text in ("Triage, add to list (alice)", "manage.py import_papers (root)", "")
    ]

    migration.forget_list_names(apps, None)

    run.refresh_from_db()
    assert run.invoked_by == new
    assert [ImportRun.objects.get(pk=o.pk).invoked_by for o in others] == [
        o.invoked_by for o in others
    ]
