"""One-click capture from another site (issue 39, point 2): the page the bookmarklet opens is
a GET that writes nothing; adding is a POST with our CSRF token, made by the member's press of
Add, or by the page's script with the member's bookmarklet key; each capture can be undone,
which takes off its list the item it added and nothing else. What the foreign page sends is
untrusted: length-limited, parsed by papers.sources.identifiers, escaped."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
import respx
from django.test import Client
from django.urls import reverse
from django.utils.http import urlencode

from annotations import capture
from annotations.models import Capture, CaptureSettings
from papers.models import LinkFetch, Paper
from papers.sources import single
from tests.factories import PASSWORD, make_paper, make_reading_list, make_user
from tests.link_lookup_helpers import (
    CROSSREF,
    DOI,
    crossref_work,
    row_counts,
    run_worker,
    use_test_services,
)

pytestmark = pytest.mark.django_db

PAGE = reverse("annotations:capture")
ADD = reverse("annotations:capture-add")
SETTINGS = reverse("annotations:capture-settings")


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    use_test_services(settings)
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


@pytest.fixture
def member(client, user):
    client.force_login(user)
    return user


def capture_url(**sent) -> str:
    return f"{PAGE}?{urlencode(sent)}"


# --- The page the bookmarklet opens -------------------------------------------------------------


def test_the_capture_page_shows_the_paper_and_the_chosen_list_and_writes_nothing(client, member):
    paper = make_paper("Optuna, known here", doi=DOI)
    make_reading_list(member, "Reading group")
    chosen = make_reading_list(member, "Queue")
    capture.choose_target(member=member, reading_list=chosen)
    before = row_counts()

    with respx.mock(assert_all_called=False) as outside:
        response = client.get(capture_url(url="https://example.org/article/7", doi=DOI))

    assert response.status_code == 200 and not outside.calls
    page = response.content.decode()
    assert paper.title in page
    assert f'<option value="{chosen.pk}" selected>Queue</option>' in page
    assert 'name="link" value="10.1145/3292500.3330701"' in page
    assert row_counts() == before


def test_a_paper_not_here_is_announced_not_fetched_by_the_get(client, member):
    make_reading_list(member, "Queue")
    before = row_counts()
    with respx.mock(assert_all_called=False) as outside:
        page = client.get(capture_url(doi=DOI)).content.decode()
    assert "is not in the catalogue yet: it will be fetched" in page
    assert not outside.calls and row_counts() == before


def test_the_address_names_the_paper_before_the_meta_tags(client, member):
    make_reading_list(member, "Queue")
    arxiv = make_paper("From arXiv", arxiv_id="2402.01234")
    make_paper("From Crossref", doi=DOI)
    page = client.get(capture_url(url="https://arxiv.org/abs/2402.01234v2", doi=DOI)).content
    assert arxiv.title in page.decode() and b"From Crossref" not in page


def test_a_visitor_is_sent_to_log_in_and_comes_back_to_the_capture(client, user):
    url = capture_url(doi=DOI, title="Optuna")
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={quote(url, safe='/')}"

    make_reading_list(user, "Queue")
    back = client.post(
        reverse("login"), {"username": user.username, "password": PASSWORD, "next": url}
    )
    assert back.status_code == 302 and back["Location"] == url


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (
            {"doi": "10.1/" + "x" * 10_000},
            "The page&#x27;s citation_doi is too long (10,005 characters).",
        ),
        ({"url": "https://arxiv.org/abs/" + "1" * 10_000}, "The page&#x27;s address is too long"),
        ({"title": "t" * 10_000}, "The page&#x27;s title is too long"),
        ({"doi": "10.1234/../../admin"}, "That DOI cannot be looked up"),
        (
            {"doi": "<script>alert(1)</script>"},
            "names no arXiv, OpenReview or DOI paper, nor a title",
        ),
        ({}, "names no arXiv, OpenReview or DOI paper, nor a title"),
    ],
)
def test_hostile_identifiers_are_refused_cleanly(client, member, sent, said):
    make_reading_list(member, "Queue")
    before = row_counts()
    response = client.get(capture_url(**sent))
    page = response.content.decode()
    assert response.status_code == 400
    assert said in page
    assert "<script>alert" not in page and 'name="link"' not in page
    assert row_counts() == before


def test_a_hostile_title_is_escaped_and_searched_not_fetched(client, member):
    make_reading_list(member, "Queue")
    with respx.mock(assert_all_called=False) as outside:
        page = client.get(capture_url(title="<script>alert(1)</script>")).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert not outside.calls


def test_a_title_only_page_offers_the_catalogues_matches(client, member):
    reading_list = make_reading_list(member, "Queue")
    paper = make_paper("Attention Is All You Need")
    make_paper("Something else entirely")

    page = client.get(capture_url(title="attention is all  you need")).content.decode()

    assert f'name="paper" value="{paper.pk}" checked' in page
    assert "Something else entirely" not in page
    response = client.post(ADD, {"paper": paper.pk, "reading_list": reading_list.pk, "add": "1"})
    assert response.status_code == 303
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]


# --- Adding: a POST, with our CSRF token, pressed or keyed -----------------------------------


def test_the_post_needs_the_csrf_token(user):
    reading_list = make_reading_list(user, "Queue")
    make_paper("Known", doi=DOI)
    key = capture.make_key(member=user)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)

    response = browser.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "key": key})

    assert response.status_code == 403 and not reading_list.items.exists()


def test_pressing_add_puts_a_known_paper_on_the_list_at_once(client, member):
    reading_list = make_reading_list(member, "Queue")
    paper = make_paper("Known", doi=DOI)
    with respx.mock(assert_all_called=False) as outside:
        response = client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    captured = Capture.objects.get()
    assert response.status_code == 303 and response["Location"] == captured.get_absolute_url()
    assert not outside.calls and not LinkFetch.objects.exists()
    assert captured.item == reading_list.items.get(paper=paper)
    page = client.get(captured.get_absolute_url()).content.decode()
    assert "Added “" in page and "Undo" in page


def test_the_members_key_adds_without_a_press(client, member):
    reading_list = make_reading_list(member, "Queue")
    paper = make_paper("Known", doi=DOI)
    key = capture.make_key(member=member)
    response = client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "key": key})
    assert response.status_code == 303
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]


@pytest.mark.parametrize("key", ["", "not-the-key-but-long-enough-0123456789", "another members"])
def test_without_the_members_key_nothing_is_added_until_add_is_pressed(client, member, key):
    reading_list = make_reading_list(member, "Queue")
    make_paper("Known", doi=DOI)
    capture.make_key(member=member)
    other_key = capture.make_key(member=make_user("someone"))
    sent = {"link": DOI, "reading_list": reading_list.pk, "key": other_key if " " in key else key}

    response = client.post(ADD, sent)

    assert response.status_code == 403
    assert "press Add to add the paper" in response.content.decode()
    assert not reading_list.items.exists() and not Capture.objects.exists()


def test_a_revoked_key_no_longer_adds(client, member):
    reading_list = make_reading_list(member, "Queue")
    make_paper("Known", doi=DOI)
    key = capture.make_key(member=member)
    client.post(reverse("annotations:capture-key-revoke"))
    response = client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "key": key})
    assert response.status_code == 403 and not reading_list.items.exists()


def test_only_a_list_of_ones_own_is_a_target(client, member):
    theirs = make_reading_list(make_user("someone"), "Theirs")
    make_paper("Known", doi=DOI)
    response = client.post(ADD, {"link": DOI, "reading_list": theirs.pk, "add": "1"})
    assert response.status_code == 400 and not theirs.items.exists()


def test_a_paper_not_here_is_fetched_through_the_queue_and_then_listed(client, member):
    reading_list = make_reading_list(member, "Queue")
    with respx.mock(assert_all_called=False) as outside:
        response = client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    assert not outside.calls
    captured = Capture.objects.get()
    assert captured.link_fetch == LinkFetch.objects.get(kind="doi", value=DOI)
    assert 'hx-trigger="every 1s"' in client.get(response["Location"]).content.decode()

    with respx.mock() as outside:
        outside.get(f"{CROSSREF}/works/{DOI}").mock(
            return_value=httpx.Response(200, json=crossref_work())
        )
        run_worker()

    paper = Paper.objects.get(doi=DOI)
    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]
    page = client.get(response["Location"]).content.decode()
    assert "Added “" in page and 'hx-trigger="every' not in page


def test_captures_share_the_members_lookup_limit(client, member, settings):
    settings.LINK_LOOKUPS_PER_MINUTE = 0
    reading_list = make_reading_list(member, "Queue")
    response = client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    assert response.status_code == 429 and not LinkFetch.objects.exists()


# --- Undo ---------------------------------------------------------------------------------------


def test_undo_takes_off_the_item_the_capture_added_and_nothing_else(client, member):
    paper, other = make_paper("Known", doi=DOI), make_paper("Other")
    reading_list = make_reading_list(member, "Queue", papers=[other])
    elsewhere = make_reading_list(member, "Elsewhere", papers=[paper])
    client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    captured = Capture.objects.get()

    response = client.post(reverse("annotations:capture-undo", args=[captured.pk]))

    assert response.status_code == 303
    assert list(reading_list.items.values_list("paper", flat=True)) == [other.pk]
    assert list(elsewhere.items.values_list("paper", flat=True)) == [paper.pk]
    assert Paper.objects.filter(pk=paper.pk).exists()
    assert "Taken off “Queue”." in client.get(response["Location"]).content.decode()
    client.post(reverse("annotations:capture-undo", args=[captured.pk]))  # again: nothing
    assert list(reading_list.items.values_list("paper", flat=True)) == [other.pk]


def test_undo_of_a_paper_listed_already_removes_nothing(client, member):
    paper = make_paper("Known", doi=DOI)
    reading_list = make_reading_list(member, "Queue", papers=[paper])
    client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    captured = Capture.objects.get()
    assert "already: nothing added" in client.get(captured.get_absolute_url()).content.decode()

    client.post(reverse("annotations:capture-undo", args=[captured.pk]))

    assert list(reading_list.items.values_list("paper", flat=True)) == [paper.pk]


def test_undo_of_a_fetched_paper_takes_off_its_item(client, member):
    reading_list = make_reading_list(member, "Queue")
    client.post(ADD, {"link": DOI, "reading_list": reading_list.pk, "add": "1"})
    with respx.mock() as outside:
        outside.get(f"{CROSSREF}/works/{DOI}").mock(
            return_value=httpx.Response(200, json=crossref_work())
        )
        run_worker()
    captured = Capture.objects.get()
    client.post(reverse("annotations:capture-undo", args=[captured.pk]))
    assert not reading_list.items.exists() and Paper.objects.filter(doi=DOI).exists()


def test_another_members_capture_is_a_404(client, member):
    someone = make_user("someone")
    paper = make_paper("Known", doi=DOI)
    theirs = make_reading_list(someone, "Theirs")
    captured = capture.capture(member=someone, reading_list=theirs, paper=paper)

    assert client.get(captured.get_absolute_url()).status_code == 404
    undo = client.post(reverse("annotations:capture-undo", args=[captured.pk]))
    assert undo.status_code == 404 and theirs.items.count() == 1


# --- The member's capture page --------------------------------------------------------------


def test_the_target_list_is_chosen_once_and_saved(client, member):
    make_reading_list(member, "First")
    queue = make_reading_list(member, "Queue")
    response = client.post(SETTINGS, {"reading_list": queue.pk})
    assert response.status_code == 303
    assert CaptureSettings.objects.get(member=member).reading_list == queue
    assert capture.target_list(member) == queue


def test_the_key_is_shown_once_and_stored_hashed(client, member):
    page = client.post(reverse("annotations:capture-key")).content.decode()
    key = _key_in(page)
    stored = CaptureSettings.objects.get(member=member).key_hash
    assert len(key) >= 40 and key not in stored and stored not in page
    assert capture.key_matches(member, key) and not capture.key_matches(member, stored)
    assert 'data-bookmarklet="one-click"' not in client.get(SETTINGS).content.decode()


def _key_in(page: str) -> str:
    """The key in the one-click bookmarklet's code (`k="..."`, HTML-escaped in the href)."""
    marker = "k=&quot;"
    start = page.index(marker) + len(marker)
    return page[start : page.index("&quot;", start)]


def test_the_ask_first_bookmarklet_carries_no_key_and_names_our_capture_page(client, member):
    page = client.get(SETTINGS).content.decode()
    assert "javascript:(function(){" in page and "k=&quot;&quot;" in page
    assert "&quot;http://testserver/capture/&quot;" in page
    for tag in ("citation_doi", "citation_arxiv_id", "citation_title"):
        assert tag in page
