"""Real Chromium (Debian's /usr/bin/chromium) driven by Playwright against Django's live server.

Never downloads a browser. Without Chromium the tests skip with the reason, unless
REQUIRE_BROWSER_TESTS=1 (set by CI), where a missing browser is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.journey_helpers import PHONE

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOT_DIR = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"

# Playwright's sync API keeps an event loop alive in this thread; the Django ORM calls the
# tests make for set-up are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _missing_browser_reason() -> str | None:
    if not CHROMIUM.exists():
        return (
            f"Chromium not found at {CHROMIUM}: install Debian's packages "
            "`chromium chromium-driver` to run the browser tests"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (make test installs it)"
    return None


@pytest.fixture(scope="session")
def browser():
    reason = _missing_browser_reason()
    if reason:
        if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
            pytest.fail(f"browser tests are required here but cannot run: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def phone(browser):
    """A page on a phone's screen (journey_helpers.PHONE), as a phone lays pages out."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    yield context.new_page()
    context.close()


@pytest.fixture
def screenshot(page):
    """Save a full-page screenshot under test-output/screenshots/ and return its path."""
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOT_DIR / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
