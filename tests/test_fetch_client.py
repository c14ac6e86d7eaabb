"""The HTTP client of outside services: retries, Retry-After, politeness, errors naming the URL.
Responses are replayed by respx; nothing reaches the internet and nothing really sleeps."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
import respx

from papers.sources.client import (
    FetchClient,
    FetchError,
    Service,
    ServiceBusy,
    retry_after_seconds,
)

BASE = "https://api.example.org"
SERVICE = Service("Example", BASE)


class FakeTime:
    """A clock that only moves when the client sleeps; the sleeps are recorded."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


@pytest.fixture
def fake_time():
    return FakeTime()


def client(fake_time, service=SERVICE, **options) -> FetchClient:
    return FetchClient(
        service, sleep=fake_time.sleep, clock=fake_time.clock, jitter=lambda: 0.0, **options
    )


@respx.mock
def test_retries_a_503_then_succeeds_with_exponential_backoff(fake_time):
    route = respx.get(f"{BASE}/notes").mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(503),
            httpx.Response(200, json={"notes": [], "count": 0}),
        ]
    )
    with client(fake_time) as http:
        fetched = http.get_json("/notes", {"offset": 0})
    assert fetched.data == {"notes": [], "count": 0}
    assert fetched.url == f"{BASE}/notes?offset=0"
    assert route.call_count == 3
    assert fake_time.sleeps == [1.0, 2.0]


@respx.mock
def test_a_429_waits_what_retry_after_says(fake_time):
    respx.get(f"{BASE}/notes").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200)]
    )
    with client(fake_time) as http:
        assert http.get("/notes").status_code == 200
    assert fake_time.sleeps == [7.0]


@respx.mock
def test_a_long_retry_after_is_capped(fake_time):
    respx.get(f"{BASE}/notes").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "86400"}), httpx.Response(200)]
    )
    with client(fake_time, max_wait=30.0) as http:
        http.get("/notes")
    assert fake_time.sleeps == [30.0]


def test_retry_after_as_an_http_date():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Wed, 01 Jan 2025 12:00:42 GMT", now) == 42.0
    assert retry_after_seconds("Wed, 01 Jan 2025 11:00:00 GMT", now) == 0.0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds("", now) is None


@respx.mock
def test_gives_up_after_the_last_try_naming_the_url(fake_time):
    route = respx.get(f"{BASE}/notes").mock(return_value=httpx.Response(502))
    with client(fake_time, tries=4) as http, pytest.raises(FetchError) as caught:
        http.get("/notes", {"content.venueid": "ICLR.cc/2025/Conference"})
    assert route.call_count == 4
    assert len(fake_time.sleeps) == 3  # no pointless wait after the last try
    message = str(caught.value)
    assert message.startswith(f"{BASE}/notes?content.venueid=ICLR.cc%2F2025%2FConference: ")
    assert "gave up after 4 tries (HTTP 502 Bad Gateway)" in message


@respx.mock
def test_a_connection_error_is_retried(fake_time):
    route = respx.get(f"{BASE}/notes").mock(
        side_effect=[httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), httpx.Response(200)]
    )
    with client(fake_time) as http:
        assert http.get("/notes").status_code == 200
    assert route.call_count == 3


@respx.mock
def test_timeouts_until_the_end_say_so(fake_time):
    respx.get(f"{BASE}/notes").mock(side_effect=httpx.ReadTimeout("slow"))
    with client(fake_time, tries=2) as http, pytest.raises(FetchError) as caught:
        http.get("/notes")
    assert "no answer within" in str(caught.value)


@respx.mock
def test_a_404_is_not_retried(fake_time):
    route = respx.get(f"{BASE}/missing").mock(return_value=httpx.Response(404))
    with client(fake_time) as http, pytest.raises(FetchError) as caught:
        http.get("/missing")
    assert route.call_count == 1
    assert str(caught.value) == f"{BASE}/missing: Example answered HTTP 404 Not Found"


@respx.mock
def test_malformed_json_is_a_fetch_error_naming_the_url(fake_time):
    respx.get(f"{BASE}/notes").mock(return_value=httpx.Response(200, text='{"notes": [1, 2'))
    with client(fake_time) as http, pytest.raises(FetchError) as caught:
        http.get_json("/notes", {"offset": 1000})
    assert str(caught.value).startswith(f"{BASE}/notes?offset=1000: the answer is not JSON")


@respx.mock
def test_json_of_the_wrong_shape_is_a_fetch_error(fake_time):
    respx.get(f"{BASE}/notes").mock(return_value=httpx.Response(200, json=[1, 2]))
    with client(fake_time) as http, pytest.raises(FetchError) as caught:
        http.get_json("/notes")
    assert str(caught.value) == f"{BASE}/notes: expected a JSON dict, got a list"


@respx.mock
def test_the_user_agent_names_the_app_and_the_contact(fake_time, settings):
    settings.FETCH_CONTACT = "lab-admin@example.org"
    route = respx.get(f"{BASE}/notes").mock(return_value=httpx.Response(200))
    with client(fake_time) as http:
        http.get("/notes")
    agent = route.calls.last.request.headers["User-Agent"]
    assert agent.startswith("paperbrowser/")
    assert "mailto:lab-admin@example.org" in agent


def sent_at(fake_time) -> tuple[list[float], httpx.Response]:
    """When each request was sent, by the fake clock."""
    times: list[float] = []

    def answer(request):
        times.append(fake_time.now)
        return httpx.Response(200)

    return times, answer


# The delay is kept site-wide: turns are taken in the shared cache (the database's here).
@pytest.mark.django_db
@respx.mock
def test_a_polite_service_waits_its_delay_between_requests(fake_time):
    times, answer = sent_at(fake_time)
    respx.get(f"{BASE}/query").mock(side_effect=answer)
    with client(fake_time, Service("arXiv", BASE, delay=3.0)) as http:
        http.get("/query")
        fake_time.now += 1.0  # one second of parsing before the next request
        http.get("/query")
        http.get("/query")
    # The first at once (holding its turn and the next), then one at the start of each next
    # free turn: 3 s and a little (TURN_MARGIN) apart at least.
    assert times[0] == 1000.0
    gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
    assert all(3.0 < gap < 7.0 for gap in gaps), gaps


@pytest.mark.django_db
@respx.mock
def test_two_clients_requests_in_a_row_are_spaced_by_the_delay(fake_time):
    """Two clients (two workers, two servers) of one service share its delay: the second
    waits for its turn although it has sent nothing before."""
    times, answer = sent_at(fake_time)
    respx.get(f"{BASE}/query").mock(side_effect=answer)
    arxiv = Service("arXiv", BASE, delay=3.0)
    with client(fake_time, arxiv) as first, client(fake_time, arxiv) as second:
        for _ in range(3):
            first.get("/query")
            second.get("/query")
    gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
    assert len(times) == 6
    assert min(gaps) >= 3.0
    # Positive control: a service without a delay is asked at once, each time.
    times.clear()
    with client(fake_time, Service("Example", BASE)) as first, client(fake_time) as second:
        first.get("/query")
        second.get("/query")
    assert times[0] == times[1]


@pytest.mark.django_db
@respx.mock
def test_a_client_that_may_not_wait_long_is_refused_rather_than_held(fake_time):
    route = respx.get(f"{BASE}/query").mock(return_value=httpx.Response(200))
    arxiv = Service("arXiv", BASE, delay=3.0)
    with client(fake_time, arxiv) as busy:
        busy.get("/query")  # at once, holding its slot and the next
        busy.get("/query")  # 5 s on
    with client(fake_time, arxiv, max_turn_wait=2.0) as lookup:
        with pytest.raises(ServiceBusy, match="arXiv is busy; try again in a moment"):
            lookup.get("/query")
    assert route.call_count == 2
    # Its turn comes within 5 s: it waits for it.
    with client(fake_time, arxiv, max_turn_wait=5.0) as lookup:
        lookup.get("/query")
    assert route.call_count == 3


@respx.mock
def test_a_304_asked_for_is_an_answer_with_the_headers_sent(fake_time):
    route = respx.get(f"{BASE}/items").mock(return_value=httpx.Response(304))
    with client(fake_time) as http:
        response = http.get(
            "/items", headers={"If-Modified-Since-Version": "7"}, answers=frozenset({304})
        )
        assert response.status_code == 304
        assert route.calls.last.request.headers["If-Modified-Since-Version"] == "7"
        with pytest.raises(FetchError, match="304"):
            http.get("/items")


@respx.mock
def test_a_429_waits_the_longer_of_retry_after_and_backoff(fake_time):
    respx.get(f"{BASE}/items").mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "3", "Backoff": "9"}),
            httpx.Response(200, json=[]),
        ]
    )
    with client(fake_time) as http:
        http.get("/items")
    assert fake_time.sleeps == [9.0]


@respx.mock
def test_a_write_sends_json_is_retried_after_a_429_and_never_redirected(fake_time):
    route = respx.patch(f"{BASE}/items/A").mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "2"}),
            httpx.Response(412),
            httpx.Response(302, headers={"Location": f"{BASE}/elsewhere"}),
        ]
    )
    with client(fake_time) as http:
        answer = http.write("PATCH", "/items/A", {"tags": []}, answers=frozenset({412}))
        assert answer.status_code == 412
        assert route.calls.last.request.content == b'{"tags": []}'
        assert route.calls.last.request.headers["Content-Type"] == "application/json"
        with pytest.raises(FetchError, match="302"):
            http.write("PATCH", "/items/A", {})
    assert fake_time.sleeps == [2.0]
