import itertools

import pytest

from tests import factories

_index_numbers = itertools.count(1)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects, so `-m "not slow"` sees the marker
def pytest_collection_modifyitems(items):
    # A browser test starts a live server and drives Chromium: each takes seconds.
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    # The manifest storage needs `collectstatic`; tests render templates without it.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # The production hasher is slow by design (~0.3 s per user) and tests create many users.
    # Autouse fixtures run before the others, so this holds for `admin_client`'s user too.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _search_index_per_test(settings, tmp_path_factory):
    """Each test gets its own search index directory, created only if the test searches.

    A test's database changes are rolled back afterwards; an index shared between tests
    would keep their documents. The directory is a fresh path, not made until first use.
    """
    from papers.search import sync

    base = tmp_path_factory.getbasetemp() / "search-indexes"
    settings.SEARCH_INDEX_DIR = base / str(next(_index_numbers))
    sync.reset()
    yield
    sync.reset()


@pytest.fixture(autouse=True)
def _no_request_left_open():
    """A test that leaves a response unclosed (a streamed one never read to its end) never
    sends request_finished, so its request's search position (papers.models_search) would
    stay cached for the next test in the process: each test starts outside any request, as
    a server's next request would."""
    from papers import models_search

    models_search._request_finished()


@pytest.fixture
def index_of(tmp_path):
    """Call it after making papers: a searcher over an index of the database as it is (each
    call a new index under tmp_path; `commit_every=N` makes several segments)."""
    from tests.search_engine_helpers import build_index

    numbers = itertools.count()
    return lambda **options: build_index(tmp_path / f"index{next(numbers)}", **options)


@pytest.fixture(autouse=True)
def _semantic_search_off(settings):
    """Search by meaning stays off unless a test turns it on (tests/semantic_helpers.py): a
    paper saved elsewhere then never loads a model."""
    from semantic import embedder, search

    settings.SEMANTIC_SEARCH = "off"
    embedder.reset()
    search.reset()
    yield
    embedder.reset()
    search.reset()


@pytest.fixture(autouse=True)
def _pdf_hosts_without_delay(settings):
    """PDF downloads take no turns between requests to one host (PDF_HOST_DELAY) unless a test
    sets it (tests/test_pdfs_fetch_politeness.py): most tests ask one local server many times,
    and many ask it outside the database, where the turns are kept."""
    settings.PDF_HOST_DELAY = 0


@pytest.fixture
def user(db):
    return factories.make_user("alice")


@pytest.fixture
def other_user(db):
    return factories.make_user("bob")


@pytest.fixture
def zotero(settings):
    """The stand-in of Zotero's Web API v3 (tests/zotero_server.py), the site pointed at it."""
    from tests import zotero_server

    with zotero_server.running(settings) as server:
        yield server


@pytest.fixture
def library(zotero):
    """The stand-in's group library, synced by the member "zotero-sync"."""
    from zotero.models import Library

    return Library.objects.create(
        group_id=zotero.group_id, member=factories.make_user("zotero-sync")
    )


@pytest.fixture
def statement_timeout(db):
    """On PostgreSQL, cancel any statement of this test after 5 s.

    For tests of inputs that once made a query run away (a phrase search grew a backend to
    24 GB): a regression then fails the test instead of exhausting the shared server.
    """
    from django.db import connection

    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '5s'")
    yield
    with connection.cursor() as cursor:
        cursor.execute("RESET statement_timeout")


@pytest.fixture
def shared_database(tmp_path):
    """For tests with threads that each open their own database connection (mark the test
    `django_db(transaction=True)`): see tests/database_threads.py."""
    from tests.database_threads import SharedDatabase

    shared = SharedDatabase(tmp_path)
    yield shared
    shared.restore()
