"""The one HTTP client of every outside service: polite, patient within bounds, and clear.

- Polite: a User-Agent naming the app and a contact address (FETCH_CONTACT), as arXiv and
  Crossref ask of API users; a minimum delay between two requests to one service (arXiv asks
  for 3 seconds, ARXIV_API_DELAY); a timeout on every request (FETCH_TIMEOUT).
- Patient within bounds: a 429 waits what its Retry-After says (seconds or an HTTP date, at
  most MAX_WAIT); a 5xx, a timeout or a dropped connection is tried again after an exponential
  backoff with jitter (so that many clients do not retry in step); at most `tries` attempts.
- Clear: whatever goes wrong (gave up, 4xx, not JSON, not the expected shape) is one
  FetchError whose message names the URL, for a command to print on one line.

The sleep, clock and jitter are injectable, so tests run without waiting.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from django.conf import settings

from papers.importing import safe_json
from papers.numbers import bounded_int
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
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
    ):
        self.service = service
        self.tries = max(1, tries)
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_wait = max_wait
        self.sleep = sleep
        self.clock = clock
        self.jitter = jitter
        self._last_request: float | None = None
        self.http = httpx.Client(
            base_url=service.base_url,
            headers={"User-Agent": user_agent(), "Accept": "application/json"},
            timeout=float(settings.FETCH_TIMEOUT),
            transport=transport,
            follow_redirects=True,
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
        request = self.http.build_request("GET", path, params=params)
        url = str(request.url)
        problem = ""
        for attempt in range(1, self.tries + 1):
            self._wait_turn()
            try:
                response = self.http.send(request)
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

    def _wait_turn(self) -> None:
        """Keep the service's minimum delay since this client's previous request."""
        if self.service.delay and self._last_request is not None:
            remaining = self._last_request + self.service.delay - self.clock()
            if remaining > 0:
                self.sleep(remaining)
        self._last_request = self.clock()

    def _backoff(self, attempt: int) -> float:
        # 1, 2, 4, 8 s ... plus up to one base step of jitter.
        wait = self.backoff * (2 ** (attempt - 1)) + self.backoff * self.jitter()
        return min(wait, self.max_wait)

    def _retry_after(self, response: httpx.Response, attempt: int) -> float:
        seconds = retry_after_seconds(response.headers.get("Retry-After", ""))
        if seconds is None:
            return self._backoff(attempt)
        return min(seconds, self.max_wait)


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
