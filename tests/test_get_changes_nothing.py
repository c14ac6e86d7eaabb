"""A GET never writes and never reaches outside the site (issue 38): every route the URL
resolver knows is requested by a visitor and by a member, with the objects of
tests/access_world.py for its arguments, and the database is the same afterwards: the row
count of every table, and a checksum of every row of the catalogue and the annotations.

The access matrix (tests/test_access_matrix.py) checks what each role is answered, route by
route, with a snapshot of the rows a refused request could change; this test checks every
table at once, over the whole walk, and also GETs the routes that only take a POST.
"""

from __future__ import annotations

import hashlib

import pytest
import respx
from django.apps import apps

from annotations.models import Comment, Note, ReadingList, ReadingListItem
from highlights.models import Highlight
from papers.models import Author, Paper, Tag
from tests.access_table import ADMIN_SWEEP_KEYS, ROWS, admin_sweep_urls, route_key, site_routes
from tests.access_world import build_world

CHECKSUMMED = (Paper, Author, Tag, Note, ReadingList, ReadingListItem, Highlight, Comment)


def fingerprint() -> tuple[dict[str, int], dict[str, str]]:
    """The row count of every table, and a hash of every row of the CHECKSUMMED tables."""
    counts = {
        model._meta.db_table: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }
    checksums = {
        model.__name__: hashlib.sha256(
            repr(list(model._base_manager.order_by("pk").values_list())).encode()
        ).hexdigest()
        for model in CHECKSUMMED
    }
    return counts, checksums


def every_get_url(world) -> dict[str, list[str]]:
    """The URLs to request, by route: each table row's URL (a POST-only route is requested
    with GET too), the admin's model pages for every object of the world."""
    urls: dict[str, list[str]] = {}
    for row in ROWS:
        url = row.url(world)
        if url not in urls.setdefault(route_key(row), []):
            urls[route_key(row)].append(url)
    urls["admin model pages"] = admin_sweep_urls()
    return urls


@pytest.fixture
def world(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return build_world()


def test_every_route_of_the_resolver_is_requested():
    """The walk below covers the site: a route without a row in tests/access_table.py (and
    not an admin model page) would be left out of it."""
    requested = {route_key(row) for row in ROWS} | ADMIN_SWEEP_KEYS
    assert sorted({key for key, _route in site_routes()} - requested) == []


@pytest.mark.parametrize("role", ["visitor", "member"])
def test_every_get_as_a_visitor_or_a_member_leaves_the_database_as_it_was(world, role):
    client = world.client_for(role)
    before = fingerprint()
    answers: dict[int, int] = {}
    # Every outbound request through httpx (the site's clients) is answered 503 and counted,
    # even one whose failure a view would swallow: a GET makes none.
    with respx.mock(assert_all_called=False) as outside:
        outside.route().respond(503)
        for _route, urls in every_get_url(world).items():
            for url in urls:
                status = client.get(url).status_code
                answers[status] = answers.get(status, 0) + 1
                assert status < 500, f"GET {url} as {role}: {status}"
    assert outside.calls.call_count == 0
    assert fingerprint() == before
    # The positive control: the walk reached pages that render, not only refusals.
    assert answers.get(200, 0) >= 20, answers
