"""Hostile numbers and dates in request headers, sent to every URL of the site: never a server
error (issue 43, finding 3).

The sweep of paths, queries and forms (tests/test_hostile_numbers.py) enumerates the URLs; this
one sends the same URLs, as a visitor, a member and staff, every header the site, Django or
django-htmx reads as a number, a date or an address: `Range` in every form (the paper's PDF is
stored, so its view reads it), `If-Range`, the conditional dates, `Content-Length` of a POST,
`X-Forwarded-For` behind a trusted proxy (login lockouts and reset throttles read it), htmx's
headers, the request id, and a port past any number in `Host`, `Origin` and `Referer`. Last,
the headers of outside services' answers that the fetchers read as numbers and dates.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from django.test import Client
from django.urls import reverse

from config.proxies import client_address
from papers.models import Paper
from papers.sources.client import FetchClient, Service, retry_after_seconds
from pdfs.fetching import PdfFetcher
from tests.factories import make_user
from tests.pdf_files import make_pdf
from tests.pdf_storing import store_test_pdf
from tests.test_hostile_numbers import BIG, PAST_BIGINT, World, _site_urls, _world

HUGE_DATE = f"Sun, 06 Nov {BIG} 08:49:37 GMT"
PAST_YEAR_9999 = "Sun, 06 Nov 99999999999 08:49:37 GMT"

# Each a request of its own: one Range per request, and an If-Range beside it would make the
# server ignore it.
RANGES = [
    f"bytes={BIG}-",
    f"bytes=-{BIG}",
    f"bytes=0-{BIG}",
    f"bytes={BIG}-{BIG}",
    f"bytes=0-1,{BIG}-,-{BIG}",
    f"bytes= {'0' * 5_000}1-{PAST_BIGINT} ",
    f"bytes={PAST_BIGINT}-",
    f"BYTES=-{PAST_BIGINT}",
]
# Read together: none of them stops a request before the others are read.
EVERY_OTHER_HEADER = {
    "If-Range": HUGE_DATE,
    "If-Modified-Since": HUGE_DATE,
    "If-Unmodified-Since": PAST_YEAR_9999,
    "If-None-Match": f'"{BIG}"',
    # Read from the right: a trusted proxy with a huge port, then a huge "address".
    "X-Forwarded-For": f"1.2.3.4, {BIG}:{BIG}, [::1]:{BIG}",
    "X-Forwarded-Port": BIG,
    "X-Request-ID": BIG,
    "Accept": f"text/html;q={BIG}",
    "HX-Request": "true",
    "HX-Target": BIG,
    "HX-Trigger": BIG,
    "HX-Trigger-Name": BIG,
    "HX-Current-URL": f"http://testserver:{BIG}/?page={BIG}",
    "HX-Prompt": BIG,
    "HX-Boosted": BIG,
    "HX-History-Restore-Request": BIG,
}
# A length past the body's (2**64) is left out: Django would wait for bytes the test client does
# not have, as it would for a slow client; gunicorn's timeout and the proxy's cap on request
# bodies bound that (docs/security.md), not the application.
CONTENT_LENGTHS = [BIG, "-1", "1e3"]
HOSTILE_PORT = f"testserver:{BIG}"


@pytest.fixture(params=["visitor", "member", "staff"])
def role(request) -> str:
    return request.param


@pytest.fixture
def world(role, db, settings, tmp_path) -> World:
    settings.MEDIA_ROOT = tmp_path / "media"
    # X-Forwarded-For is read only from a trusted proxy: the test client's address is one.
    settings.BEHIND_PROXY = True
    staff = role == "staff"
    user = make_user("someone", is_staff=staff, is_superuser=staff)
    world = _world(user)
    paper = Paper.objects.get(pk=world.kwargs["papers:detail"]["pk"])
    store_test_pdf(paper, make_pdf("A stored PDF."))
    return world


@pytest.fixture
def client_as(role, world):
    """A client for the role (a visitor is not logged in); `csrf=True`: one that checks CSRF
    tokens and origins."""

    def make(*, csrf: bool = False) -> Client:
        client = Client(enforce_csrf_checks=csrf)
        if role != "visitor":
            client.force_login(world.user)
        return client

    return make


def _assert_no_server_error(response, what: str) -> None:
    assert response.status_code < 500, what


def test_hostile_headers_on_any_get_are_never_a_server_error(client_as, world):
    client = client_as()
    for name, url, _ in _site_urls(world):
        for header in RANGES:
            response = client.get(url, headers={"Range": header})
            _assert_no_server_error(response, f"{name}: Range: {header[:30]}")
        response = client.get(url, headers=EVERY_OTHER_HEADER)
        _assert_no_server_error(response, f"{name}: conditional, proxy and htmx headers")
        response = client.get(url, headers={"Host": HOSTILE_PORT})
        _assert_no_server_error(response, f"{name}: Host")
        referer = {"Referer": f"http://{HOSTILE_PORT}/", "Origin": f"http://{HOSTILE_PORT}"}
        _assert_no_server_error(client.get(url, headers=referer), f"{name}: Referer")


def test_hostile_headers_on_any_post_are_never_a_server_error(client_as, world):
    client, checking = client_as(), client_as(csrf=True)
    for name, url, _ in _site_urls(world):
        response = client.post(url, world.data, headers=EVERY_OTHER_HEADER)
        _assert_no_server_error(response, f"{name}: conditional, proxy and htmx headers")
        if response.status_code == 405:  # not a form's address
            continue
        for length in CONTENT_LENGTHS:
            response = client.post(url, world.data, CONTENT_LENGTH=length)
            _assert_no_server_error(response, f"{name}: Content-Length: {length[:20]}")
        for origin in [f"http://{HOSTILE_PORT}", f"https://testserver:{PAST_BIGINT}"]:
            headers = {"Origin": origin, "Referer": f"{origin}/", "Host": HOSTILE_PORT}
            response = checking.post(url, world.data, headers=headers)
            _assert_no_server_error(response, f"{name}: Origin {origin[:30]}")


def test_the_sweep_sends_range_to_a_stored_pdf(client_as, world):
    # A positive control: the sweep's PDF URL reads Range (206), so the hostile ones reach it.
    response = client_as().get(
        reverse("pdfs:file", kwargs=world.kwargs["pdfs:file"]), headers={"Range": "bytes=0-3"}
    )
    assert response.status_code == 206
    assert b"".join(response.streaming_content) == b"%PDF"


def test_the_sweeps_forwarded_address_is_read_and_names_no_client(rf, settings):
    # A positive control: behind a trusted proxy the sweep's X-Forwarded-For is parsed hop by
    # hop; its huge "address" is none, so such requests share one count (config/proxies.py).
    settings.BEHIND_PROXY = True
    forwarded = EVERY_OTHER_HEADER["X-Forwarded-For"]
    assert client_address(rf.get("/", headers={"X-Forwarded-For": forwarded})) is None
    assert client_address(rf.get("/", headers={"X-Forwarded-For": "1.2.3.4"})) == "1.2.3.4"


@pytest.fixture
def static_client(settings):
    # WhiteNoise serving from the finders, as under `runserver` (tests/test_pdfs_reader.py).
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    return Client()


def test_hostile_headers_on_a_static_file_are_never_a_server_error(static_client):
    url = "/static/js/reader/reader.js"
    assert static_client.get(url, headers={"Range": "bytes=0-3"}).status_code == 206
    for header in RANGES:
        _assert_no_server_error(static_client.get(url, headers={"Range": header}), header[:30])
    _assert_no_server_error(static_client.get(url, headers=EVERY_OTHER_HEADER), "others")


# The sweep's headers are checked against what the code reads: a new read of a header fails
# here until the sweep sends it.
ROOT = Path(__file__).resolve().parent.parent
APPS = ["papers", "annotations", "alerts", "recommendations", "operations", "pdfs"]
APPS += ["highlights", "semantic", "config"]
_HEADER_READ = re.compile(r"""request\.headers(?:\.get\(|\[)\s*["']([\w-]+)["']""")
_META_READ = re.compile(r"""request\.META(?:\.get\(|\[)\s*["']HTTP_(\w+)["']""")


def _headers_read_by_the_site() -> set[str]:
    read: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text()
            read |= {name.lower() for name in _HEADER_READ.findall(text)}
            read |= {name.lower().replace("_", "-") for name in _META_READ.findall(text)}
    return read


def test_the_sweep_sends_every_header_the_site_reads():
    swept = {"range", "host", "origin", "referer", "content-length"}
    swept |= {name.lower() for name in EVERY_OTHER_HEADER}
    read = _headers_read_by_the_site()
    assert {"range", "if-range", "x-forwarded-for", "referer"} <= read  # the scan finds them
    assert read <= swept


# --- Answers of outside services -------------------------------------------------------------
# Their headers are read as numbers and dates too: a 429's Retry-After (the sources client and
# the PDF fetcher), a PDF's Content-Length. h11 refuses a Content-Length that is not a number
# before it reaches us; Retry-After it passes on as it came.

OVERFLOWING_DATES = [
    "Sun, 06 Nov 99999999999 08:49:37 GMT",
    f"Sun, 06 Nov {10**30} 08:49:37 GMT",
    "Sun, 06 Nov 1994 99999999999999999999:49:37 GMT",
    HUGE_DATE,
]


@pytest.mark.parametrize("value", [BIG, PAST_BIGINT, "\u00b2", "\u0663", *OVERFLOWING_DATES])
def test_a_hostile_retry_after_is_a_bounded_wait_or_none(value):
    seconds = retry_after_seconds(value)

    assert seconds is None or 0 <= seconds <= 86_400


def test_a_retry_after_within_a_day_is_read_as_it_is():
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(f"{'0' * 5_000}7") == 86_400.0  # no wait is written like that
    assert retry_after_seconds("86401") == 86_400.0


@pytest.mark.parametrize("retry_after", OVERFLOWING_DATES)
def test_a_429_with_an_overflowing_date_is_retried_after_the_usual_backoff(retry_after):
    sleeps: list[float] = []
    answers = iter([httpx.Response(429, headers={"Retry-After": retry_after}), httpx.Response(200)])
    transport = httpx.MockTransport(lambda request: next(answers))
    service = Service("Example", "https://api.example.org")
    with FetchClient(
        service, sleep=sleeps.append, clock=lambda: 0.0, jitter=lambda: 0.0, transport=transport
    ) as http:
        assert http.get("/notes").status_code == 200
    assert sleeps == [1.0]


@pytest.mark.parametrize("length", [BIG, "-1"])
def test_a_pdf_with_a_hostile_content_length_is_read_up_to_the_limit(settings, length):
    settings.PDF_FETCH_HOSTS = ["arxiv.org"]
    content = make_pdf("Fetched.")

    def answer(request):
        response = httpx.Response(200, content=content)
        response.headers["Content-Length"] = length
        return response

    with PdfFetcher(transport=httpx.MockTransport(answer), sleep=lambda s: None) as fetcher:
        downloaded = fetcher.fetch("https://arxiv.org/pdf/2310.01234")
    assert downloaded.size == len(content)
    downloaded.close()
