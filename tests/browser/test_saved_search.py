"""Saving the list page's search in a real browser, under the real CSP: the "Save this search"
box swaps in place with htmx (no page load), and the search is then on /searches/."""

from __future__ import annotations

import pytest

from alerts.models import SavedSearch
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_save_the_current_search_and_find_it_in_saved_searches(page, live_server):
    make_user("dana")
    make_paper("Latent diffusion for audio")
    make_paper("Graph networks")
    problems = ConsoleWatch().attach(page).problems
    log_in(page, live_server, "dana")
    page.goto(f"{live_server.url}/?q=diffusion")
    page.wait_for_selector("#results-heading:has-text('1 paper')")
    # A full page load would replace this marker; an htmx swap leaves it in place.
    page.evaluate("window.__noReload = true")

    page.click("#save-search summary:has-text('Save this search')")  # one line until opened
    page.fill("#save-search-name", "Diffusion watch")
    page.click("#save-search button:has-text('Save search')")
    page.wait_for_selector("#save-search [role=status]:has-text('Diffusion watch')")
    assert page.evaluate("window.__noReload") is True
    assert page.input_value("#q") == "diffusion"  # the list page's own form was not sent
    assert SavedSearch.objects.get().query == "q=diffusion"

    page.click("#save-search a:has-text('Diffusion watch')")
    page.wait_for_url(f"{live_server.url}/searches/")
    row = page.locator(".saved-search", has_text="Diffusion watch")
    assert "0 new since you last looked" in row.inner_text()
    row.locator("button:has-text('Diffusion watch')").click()
    page.wait_for_url(f"{live_server.url}/?q=diffusion")
    assert problems == []
