import pytest

from tests import factories


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    # The manifest storage needs `collectstatic`; tests render templates without it.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # The production hasher is slow by design; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def user(db):
    return factories.make_user("alice")


@pytest.fixture
def other_user(db):
    return factories.make_user("bob")


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
