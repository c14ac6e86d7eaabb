"""The one HTTP client of every outside service: polite, patient within bounds, and clear.

- Polite: a User-Agent naming the app and a contact address (FETCH_CONTACT), as arXiv and
  Crossref ask of API users; a minimum delay between two requests to one service (arXiv asks
  for 3 seconds, ARXIV_API_DELAY), kept across every process and server of the site (turns
  taken in the shared cache, `_claim_turn`); a timeout on every request (FETCH_TIMEOUT).
- Patient within bounds: a 429 waits what its Retry-After says (seconds or an HTTP date, at
  most MAX_WAIT); a 5xx, a timeout or a dropped connection is tried again after an exponential
  backoff with jitter (so that many clients do not retry in step); at most `tries` attempts.
- Clear: whatever goes wrong (gave up, 4xx, not JSON, not the expected shape) is one
  FetchError whose message names the URL, for a command to print on one line.
- Kept to the service: redirects are followed by hand (papers.sources.redirects), at most
  MAX_REDIRECTS, and only within the service's own origin (the scheme, host and port of its
  base URL); a redirect elsewhere, an internal address included, is a FetchError "redirected
  off <service>" and is never asked.

The sleep, clock and jitter are injectable, so tests run without waiting.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from django.conf import settings
from django.core.cache import cache

from papers.importing import safe_json
from papers.numbers import bounded_int
from papers.sources.redirects import RedirectRefused, follow, has_credentials, origin_of
from papers.text import is_number

APP_NAME = "paperbrowser"
# Attempts per request before giving up (the first one included).
TRIES = 5
# The first retry's wait, doubled for each retry after it, in seconds.
BACKOFF = 1.0
# The longest we wait before one retry, whatever a Retry-After asks: a server asking for an
# hour is better answered by a failed fetch that the next run completes.
MAX_WAIT = 120.0
_DAY_SECONDS = 86_400

Params = Mapping[str, str | int]
# How far ahead a request looks for a free turn (slots of the service's delay) before it gives
# up, when it would wait for any turn: an hour of arXiv's 3 s turns.
MAX_TURNS_AHEAD = 1200
# A turn is this much longer than the service's delay: between a turn's start and its request
# reaching the service lie the process's wake-up and the connection (two processes' requests
# at 1 s turns arrived 0.96 s apart without it).
TURN_MARGIN = 0.1


class FetchError(Exception):
    """A request that failed for good, or an answer that is not what was asked for."""

    def __init__(self, url: str, message: str, *, status: int | None = None):
        self.url = url
        self.message = message
        # The 4xx the service answered (a lookup tells "no such paper", 404, from a failure).
        self.status = status
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.url}: {self.message}"


class ServiceBusy(FetchError):
    """The service's next free turn is further away than the client may wait: not sent."""


@dataclass(frozen=True)
class Service:
    """An outside service: its name (in messages), base URL and delay between requests."""

    name: str
    base_url: str
    delay: float = 0.0


def service(name: str) -> Service:
    """The service `name` as settings configure it (read when called, so tests may change it)."""
    services = {
        "openreview": Service("OpenReview", settings.OPENREVIEW_API_URL),
        "openreview_v1": Service("OpenReview (API v1)", settings.OPENREVIEW_API_V1_URL),
        "arxiv": Service("arXiv", settings.ARXIV_API_URL, float(settings.ARXIV_API_DELAY)),
        "crossref": Service("Crossref", settings.CROSSREF_API_URL),
    }
    return services[name]


def user_agent() -> str:
    return f"{APP_NAME}/1.0 (paper browser for research labs; mailto:{settings.FETCH_CONTACT})"


@dataclass(frozen=True)
class Fetched:
    """A decoded JSON answer and the URL it came from (for messages about its content)."""

    url: str
    data: Any


class FetchClient:
    """Requests to one service, one at a time. Use as a context manager (or call close())."""

    def __init__(
        self,
        service: Service,
        *,
        transport: httpx.BaseTransport | None = None,
        tries: int = TRIES,
        backoff: float | None = None,
        max_wait: float = MAX_WAIT,
        sleep: Callable[[float], None] = time.sleep,
        # The wall clock, which every process and server shares (turns are taken by time).
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
        max_turn_wait: float | None = None,
    ):
        self.service = service
        # A request whose turn is further away than this is refused (ServiceBusy), not held.
        self.max_turn_wait = max_turn_wait
        self.tries = max(1, tries)
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_wait = max_wait
        self.sleep = sleep
        self.clock = clock
        self.jitter = jitter
        self.http = httpx.Client(
            base_url=service.base_url,
            headers={"User-Agent": user_agent(), "Accept": "application/json"},
            timeout=float(settings.FETCH_TIMEOUT),
            transport=transport,
            # Followed by hand: each hop is checked against the service's origin first.
            follow_redirects=False,
        )

    def __enter__(self) -> FetchClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def url(self, path: str, params: Params | None = None) -> str:
        """The full URL a request for `path` goes to, as messages name it."""
        return str(self.http.build_request("GET", path, params=params).url)

    def get(self, path: str, params: Params | None = None) -> httpx.Response:
        """A successful (2xx) answer, after retries; FetchError otherwise."""
        url = self.url(path, params)
        problem = ""
        for attempt in range(1, self.tries + 1):
            try:
                response, _ = follow(url, self._send, self._off_service)
            except RedirectRefused as refused:
                if refused.hop:
                    message = f"redirected off {self.service.name}, to {refused.hop}"
                else:
                    message = f"{self.service.name}: {refused}"
                raise FetchError(url, message) from None
            except httpx.TransportError as error:
                # Timeouts, refused or dropped connections: the next try may well get through.
                problem = _describe(error)
                wait = self._backoff(attempt)
            else:
                if response.is_success:
                    return response
                problem = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                if response.status_code == 429:
                    wait = self._retry_after(response, attempt)
                elif response.status_code >= 500:
                    wait = self._backoff(attempt)
                else:  # 4xx: asking again asks the same wrong question
                    raise FetchError(
                        url,
                        f"{self.service.name} answered {problem}",
                        status=response.status_code,
                    )
                response.close()
            if attempt < self.tries:
                self.sleep(wait)
        raise FetchError(url, f"{self.service.name}: gave up after {self.tries} tries ({problem})")

    def get_json(self, path: str, params: Params | None = None, *, expect: type = dict) -> Fetched:
        """The answer decoded as JSON, whose top-level value must be an `expect`."""
        response = self.get(path, params)
        url = str(response.request.url)
        try:
            data = safe_json.loads(response.text)
        except safe_json.JSONRejected as error:
            raise FetchError(url, f"the answer is not usable JSON: {error.message}") from None
        except ValueError as error:  # json.JSONDecodeError, a bad encoding
            raise FetchError(url, f"the answer is not JSON ({error})") from None
        if not isinstance(data, expect):
            got = type(data).__name__
            raise FetchError(url, f"expected a JSON {expect.__name__}, got a {got}")
        return Fetched(url, data)

    def _send(self, url: str) -> httpx.Response:
        """One request, in its turn; a redirect is answered as it is (see follow)."""
        self._wait_turn()
        return self.http.send(self.http.build_request("GET", url))

    def _off_service(self, url: str) -> str:
        """Why a redirect to `url` is not followed ("" when it is): it leaves the origin of
        the service's base URL, or carries credentials."""
        if origin_of(url) != origin_of(self.service.base_url) or has_credentials(url):
            return f"off {self.service.name}"
        return ""

    def _wait_turn(self) -> None:
        """Wait for this request's turn: the service's minimum delay since any request of the
        site to it, from this process or another."""
        delay = self.service.delay
        if not delay:
            return
        turn = _claim_turn(self.service.name, delay, self.clock(), self.max_turn_wait)
        if turn is None:
            raise ServiceBusy(
                self.service.base_url, f"{self.service.name} is busy; try again in a moment"
            )
        # From the clock as it is now, after the claim's queries.
        wait = turn - self.clock()
        if wait > 0:
            self.sleep(wait)

    def _backoff(self, attempt: int) -> float:
        # 1, 2, 4, 8 s ... plus up to one base step of jitter.
        wait = self.backoff * (2 ** (attempt - 1)) + self.backoff * self.jitter()
        return min(wait, self.max_wait)

    def _retry_after(self, response: httpx.Response, attempt: int) -> float:
        seconds = retry_after_seconds(response.headers.get("Retry-After", ""))
        if seconds is None:
            return self._backoff(attempt)
        return min(seconds, self.max_wait)


def _claim_turn(name: str, delay: float, now: float, max_wait: float | None) -> float | None:
    """Take a turn to send one request to the service `name`, and say when it is (None: no
    turn within `max_wait` seconds; nothing is taken).

    Time is cut into slots of `delay` seconds (and TURN_MARGIN), and a slot is taken with
    cache.add(), which one process wins (an INSERT on the database cache's key). A request
    sent at the start of slot k holds slot k; one sent at once, inside the current slot j,
    holds j and j + 1. Whichever two requests hold different slots are then at least a slot
    apart: an idle service is asked at once, a busy one once per slot.
    """
    length = delay + TURN_MARGIN
    current = math.floor(now / length)

    def take(slot: int) -> bool:
        # Kept until no request can ask for the slot any more, with room for servers' clocks.
        timeout = math.ceil((slot + 2) * length - now) + 10
        return cache.add(f"fetch-turn:{name}:{slot}", 1, timeout=timeout)

    if take(current):
        if take(current + 1):
            return now
        # The next slot's holder sends at its start, maybe less than `delay` after now.
        cache.delete(f"fetch-turn:{name}:{current}")
    for slot in range(current + 1, current + 1 + MAX_TURNS_AHEAD):
        if max_wait is not None and slot * length - now > max_wait:
            return None
        if take(slot):
            return slot * length
    return None


def retry_after_seconds(value: str, now: datetime | None = None) -> float | None:
    """Retry-After's wait in seconds: a number of seconds, or an HTTP date; None if neither."""
    value = value.strip()
    if not value:
        return None
    if is_number(value):
        # Every caller caps the wait far below a day; int() would refuse 4,300 digits.
        seconds = bounded_int(value, low=0, high=_DAY_SECONDS)
        return float(_DAY_SECONDS if seconds is None else seconds)
    try:
        when = parsedate_to_datetime(value)
    # A year past datetime's (or past a C long: OverflowError) is no date either.
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _describe(error: httpx.TransportError) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {settings.FETCH_TIMEOUT} s"
    text = str(error) or type(error).__name__
    return f"connection failed: {text}"
