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
