"""The one outbound HTTP client of the site: every request to a metadata service and every PDF
download goes through it. Polite, patient within bounds, bounded in time, and clear.

Over 600 lines: the one outbound client (turns, retries, deadlines, streaming downloads);
kept whole so that no caller builds a request path beside it (tests/test_one_outbound_client.py).

- Polite: a User-Agent naming the app and a contact address (FETCH_CONTACT), as arXiv and
  Crossref ask of API users; a minimum delay between two requests to one service (arXiv asks
  for 3 seconds, ARXIV_API_DELAY) or, for PDFs, to one host (PDF_HOST_DELAY), kept across
  every process and server of the site (turns taken in the shared cache, `_claim_turn`); a
  timeout on every request (FETCH_TIMEOUT).
- Patient within bounds: a 429 or a 5xx that may pass (500, 502, 503, 504) waits what its
  Retry-After says (seconds or an HTTP date, at most `max_wait`) or else an exponential backoff
  with jitter (so that many clients do not retry in step), as does a timeout, a refused or a
  dropped connection; at most `tries` attempts.
- Bounded in time: a call may be given a Deadline, its whole time, every try, wait and turn
  included: a wait that would end past it is not waited, each request is given what is left
  (at most FETCH_TIMEOUT) and a body still arriving when it is gone (a trickle, which no read
  timeout trips) is cut off.
- Clear: whatever goes wrong is one FetchError whose message names the URL, for a command to
  print on one line; its subclasses say what went wrong for a caller that words it itself (the
  PDF fetcher, pdfs.fetching).
- Kept where it belongs: redirects are followed by hand (papers.sources.redirects), at most
  MAX_REDIRECTS, each hop checked before it is asked by the client's redirect rule: by default
  the service's own origin (a redirect elsewhere, an internal address included, is "redirected
  off <service>" and never asked); PDFs pass the PDF_FETCH_HOSTS allow-list.
- Streaming: `download` writes a body to a Sink as it arrives, never holding it whole, and
  refuses one over its byte limit from its Content-Length before reading and while reading.

The sleep, clocks and jitter are injectable, so tests run without waiting.

Over 600 lines: the site's one outbound client by design (issue 38: one place where deadline,
turns, retries, redirects and size limits meet); redirects have their own module.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any, Protocol, TypeVar

import httpx
from django.conf import settings
from django.core.cache import cache

from papers.importing import safe_json
from papers.numbers import MAX_ID, bounded_int
from papers.sources.redirects import HopRule, RedirectRefused, follow, origin_of, same_origin
from papers.text import is_number

APP_NAME = "paperbrowser"
# Attempts per request before giving up (the first one included).
TRIES = 5
# The first retry's wait, doubled for each retry after it, in seconds.
BACKOFF = 1.0
# The longest we wait before one retry, whatever a Retry-After asks: a server asking for an
# hour is better answered by a failed fetch that the next run completes.
MAX_WAIT = 120.0
# Answers worth asking again: rate limits and a server that is briefly unwell. Any other
# (a 4xx, 501 Not Implemented) would be the same the next time.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_DAY_SECONDS = 86_400

Params = Mapping[str, str | int]
# What a test hands a client instead of the network (respx, httpx.MockTransport).
Transport = httpx.BaseTransport
# An answer, for a caller that reads its headers too (Zotero's versions and links).
Response = httpx.Response
# How far ahead a request looks for a free turn (slots of the service's delay) before it gives
# up, when it would wait for any turn: an hour of arXiv's 3 s turns.
MAX_TURNS_AHEAD = 1200
# A turn is this much longer than the service's delay: between a turn's start and its request
# reaching the service lie the process's wake-up and the connection (two processes' requests
# at 1 s turns arrived 0.96 s apart without it).
TURN_MARGIN = 0.1

T = TypeVar("T")


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
    """The service's (or host's) next free turn is further away than the client may wait:
    not sent."""


class GaveUp(FetchError):
    """Every try failed; `problem` is what the last one met."""

    def __init__(self, url: str, message: str, *, tries: int, problem: str):
        super().__init__(url, message)
        self.tries = tries
        self.problem = problem


class StatusError(FetchError):
    """An answer that asking again would not change (a 4xx); `problem` is its status line."""

    def __init__(self, url: str, message: str, *, status: int, problem: str):
        super().__init__(url, message, status=status)
        self.problem = problem


class RedirectOff(FetchError):
    """A redirect that was not followed; `refused` says to where and why."""

    def __init__(self, url: str, message: str, *, refused: RedirectRefused):
        super().__init__(url, message)
        self.refused = refused


class TooLarge(FetchError):
    """A body over the download's byte limit: announced so by its Content-Length (`announced`)
    or found so while reading (`announced` is None)."""

    def __init__(self, url: str, message: str, *, limit: int, announced: int | None):
        super().__init__(url, message)
        self.limit = limit
        self.announced = announced


class OutOfTime(FetchError):
    """The call's deadline of `seconds` came first: a wait it asked for (`wait`, after
    `problem`) would have ended past it, or the time ran out (`wait` None)."""

    def __init__(
        self,
        url: str,
        message: str,
        *,
        seconds: float,
        problem: str = "",
        wait: float | None = None,
    ):
        super().__init__(url, message)
        self.seconds = seconds
        self.problem = problem
        self.wait = wait


class NoAnswer(OutOfTime):
    """A request not answered within its `seconds` and not tried again: the deadline cut its
    timeout short, or the client does not retry timeouts."""


class _TryAgain(Exception):
    """A try that failed in a way the next may not: `wait` is what the server asked (None: the
    backoff's)."""

    def __init__(self, problem: str, wait: float | None = None):
        super().__init__(problem)
        self.problem = problem
        self.wait = wait


@dataclass(frozen=True)
class Service:
    """An outside service: its name (in messages), base URL, the delay between two requests to
    it or, `per_host`, to each of its hosts (the hosts PDFs come from), and what it answers."""

    name: str
    base_url: str
    delay: float = 0.0
    per_host: bool = False
    accept: str = "application/json"


def service(name: str) -> Service:
    """The service `name` as settings configure it (read when called, so tests may change it)."""
    services = {
        "openreview": Service("OpenReview", settings.OPENREVIEW_API_URL),
        "openreview_v1": Service("OpenReview (API v1)", settings.OPENREVIEW_API_V1_URL),
        "arxiv": Service("arXiv", settings.ARXIV_API_URL, float(settings.ARXIV_API_DELAY)),
        "crossref": Service("Crossref", settings.CROSSREF_API_URL),
        # A lab's group library (zotero.pull); its key goes in each request's headers.
        "zotero": Service("Zotero", settings.ZOTERO_API_URL),
        # Every URL absolute; redirects checked against PDF_FETCH_HOSTS (pdfs.fetching).
        "pdf_hosts": Service(
            "PDF hosts",
            "",
            float(settings.PDF_HOST_DELAY),
            per_host=True,
            accept="application/pdf",
        ),
    }
    return services[name]


def json_of(response: httpx.Response, *, expect: type = dict) -> Fetched:
    """A read answer's body decoded as JSON, whose top-level value must be an `expect`."""
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


def user_agent() -> str:
    return f"{APP_NAME}/1.0 (paper browser for research labs; mailto:{settings.FETCH_CONTACT})"


class Deadline:
    """One call's whole time, every try, wait and turn included: a wait that would end past it
    is not waited, a request is given what is left and cut off once it is gone. Shared by the
    calls of one task when it is given to a client (an add by link's lookup)."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.ends = clock() + seconds

    def left(self) -> float:
        return self.ends - self.clock()


def _out_of_time(url: str, deadline: Deadline) -> OutOfTime:
    return OutOfTime(
        url, f"no complete answer within {deadline.seconds:g} s", seconds=deadline.seconds
    )


class _DeadlineStream(httpx.SyncByteStream):
    """A body that ends with its deadline: a server that trickles a byte at a time never trips
    a read timeout, the clock does."""

    def __init__(self, stream: httpx.SyncByteStream, deadline: Deadline, url: str):
        self.stream = stream
        self.deadline = deadline
        self.url = url

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            if self.deadline.left() <= 0:
                raise _out_of_time(self.url, self.deadline)
            yield chunk

    def close(self) -> None:
        self.stream.close()


@dataclass(frozen=True)
class Fetched:
    """A decoded JSON answer and the URL it came from (for messages about its content)."""

    url: str
    data: Any


@dataclass(frozen=True)
class Downloaded:
    """A body `download` wrote: the URL asked, the one that answered, its type and size."""

    url: str
    final_url: str
    content_type: str
    size: int


class Sink(Protocol):
    """Where `download` writes a body as it arrives. `start` comes before each try's first
    byte (again after a connection lost midway: what an earlier try wrote is dropped), with the
    answer's Content-Type. Whatever `write` raises ends the download and is raised as it is."""

    def start(self, content_type: str) -> None: ...

    def write(self, data: bytes, /) -> object: ...


class FileSink:
    """A Sink into a binary file, emptied for each try."""

    def __init__(self, file: IO[bytes]):
        self.file = file

    def start(self, content_type: str) -> None:
        self.file.seek(0)
        self.file.truncate()

    def write(self, data: bytes, /) -> object:
        return self.file.write(data)


class FetchClient:
    """Requests to one service (or, for PDFs, to the hosts of a list), safe to share between
    threads. Use as a context manager (or call close())."""

    def __init__(
        self,
        service: Service,
        *,
        transport: Transport | None = None,
        tries: int = TRIES,
        backoff: float | None = None,
        max_wait: float = MAX_WAIT,
        sleep: Callable[[float], None] = time.sleep,
        # The wall clock, which every process and server shares (turns are taken by time).
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
        max_turn_wait: float | None = None,
        deadline: Deadline | None = None,
        redirects: HopRule | None = None,
        retry_timeouts: bool = True,
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
        # Every call's unless it brings its own.
        self.deadline = deadline
        # Why a redirect's hop may not be asked; by default: it leaves the service's origin.
        self.redirects = redirects or same_origin(service.base_url, service.name)
        self.retry_timeouts = retry_timeouts
        self.http = httpx.Client(
            base_url=service.base_url,
            headers={"User-Agent": user_agent(), "Accept": service.accept},
            timeout=float(settings.FETCH_TIMEOUT),
            transport=transport,
            # Followed by hand: each hop is checked by the redirect rule first.
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

    def get(
        self,
        path: str,
        params: Params | None = None,
        *,
        deadline: Deadline | None = None,
        headers: Mapping[str, str] | None = None,
        answers: frozenset[int] = frozenset(),
    ) -> httpx.Response:
        """A successful (2xx) answer, its body read, after retries; FetchError otherwise.
        `headers` are sent with the request (a key, a conditional request's version);
        `answers` are statuses returned as answers rather than errors (a 304 Not Modified)."""
        url = self.url(path, params)
        deadline = deadline or self.deadline

        def once() -> httpx.Response:
            response, _ = self._answer(url, deadline, headers, answers)
            with self._reading(url, response):
                response.read()
            return response

        return self._retrying(url, deadline, once)

    def get_json(self, path: str, params: Params | None = None, *, expect: type = dict) -> Fetched:
        """The answer decoded as JSON, whose top-level value must be an `expect`."""
        return json_of(self.get(path, params), expect=expect)

    def download(
        self, url: str, out: Sink, *, max_bytes: int, deadline: Deadline | None = None
    ) -> Downloaded:
        """The body at `url` written to `out` as it arrives, after retries: at most
        `max_bytes` (TooLarge as soon as its Content-Length or what arrived says more)."""
        deadline = deadline or self.deadline

        def once() -> Downloaded:
            response, final_url = self._answer(url, deadline)
            with self._reading(url, response):
                # Not a number, or past any file's size: the read stops at max_bytes anyway.
                length = response.headers.get("Content-Length", "")
                announced = bounded_int(length, low=0, high=MAX_ID)
                if announced is not None and announced > max_bytes:
                    message = f"{announced} bytes announced, over the limit of {max_bytes}"
                    raise TooLarge(url, message, limit=max_bytes, announced=announced)
                content_type = response.headers.get("Content-Type", "")
                out.start(content_type)
                size = 0
                # Without a chunk size: each piece as it arrives, so the deadline is looked at
                # after every read from the socket (a chunk size would gather 64 KB first).
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        message = f"more than the limit of {max_bytes} bytes arrived"
                        raise TooLarge(url, message, limit=max_bytes, announced=None)
                    out.write(chunk)
            return Downloaded(url, final_url, content_type, size)

        return self._retrying(url, deadline, once)

    def _retrying(self, url: str, deadline: Deadline | None, attempt: Callable[[], T]) -> T:
        """What `attempt` returns, tried again after a wait while it says _TryAgain, at most
        `tries` times and, given a deadline, never waiting past it."""
        problem = ""
        for number in range(1, self.tries + 1):
            try:
                return attempt()
            except _TryAgain as again:
                problem = again.problem
                asked = self._backoff(number) if again.wait is None else again.wait
            if number < self.tries:
                wait = min(asked, self.max_wait)
                if deadline is not None and wait >= deadline.left():
                    raise OutOfTime(
                        url,
                        f"no answer within {deadline.seconds:g} s ({problem}, "
                        f"asked to wait {wait:.0f} s)",
                        seconds=deadline.seconds,
                        problem=problem,
                        wait=wait,
                    )
                self.sleep(wait)
        message = f"{self.service.name}: gave up after {self.tries} tries ({problem})"
        raise GaveUp(url, message, tries=self.tries, problem=problem)

    def _answer(
        self,
        url: str,
        deadline: Deadline | None,
        headers: Mapping[str, str] | None = None,
        answers: frozenset[int] = frozenset(),
    ) -> tuple[httpx.Response, str]:
        """The 2xx answer (or one of `answers`) on the way from `url` (redirects followed) and
        the URL it answered for, its body still to read; _TryAgain for an answer worth asking
        again."""
        try:
            response, final_url = follow(
                url, lambda hop: self._send(url, hop, deadline, headers), self.redirects
            )
        except RedirectRefused as refused:
            if refused.hop:
                message = f"redirected off {self.service.name}, to {refused.hop}"
            else:
                message = f"{self.service.name}: {refused}"
            raise RedirectOff(url, message, refused=refused) from None
        return self._checked(url, response, answers), final_url

    def _checked(
        self, url: str, response: httpx.Response, answers: frozenset[int]
    ) -> httpx.Response:
        """`response` if it is a 2xx or one of `answers`; else closed, and _TryAgain for an
        answer worth asking again, StatusError for one that is not."""
        if response.is_success or response.status_code in answers:
            return response
        response.close()
        problem = f"HTTP {response.status_code} {response.reason_phrase}".strip()
        if response.status_code in RETRY_STATUSES:
            raise _TryAgain(problem, asked_wait(response.headers))
        raise StatusError(
            url,
            f"{self.service.name} answered {problem}",
            status=response.status_code,
            problem=problem,
        )

    def write(
        self,
        method: str,
        path: str,
        body: Any,
        *,
        headers: Mapping[str, str] | None = None,
        answers: frozenset[int] = frozenset(),
    ) -> httpx.Response:
        """A write (`method` PATCH, POST, PUT or DELETE) of the JSON `body`, its answer read:
        a 2xx or one of `answers` (a 412 Precondition Failed). Never redirected: a 3xx is an
        error. Asked again after a 429 or a 5xx as a read is, so a service's writes should be
        conditional (Zotero's If-Unmodified-Since-Version: a write that had landed answers 412
        the second time, and is never applied twice)."""
        url = self.url(path)
        content = json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}

        def once() -> httpx.Response:
            response = self._send(url, url, self.deadline, sent, method=method, content=content)
            with self._reading(url, response):
                response.read()
            return self._checked(url, response, answers)

        return self._retrying(url, self.deadline, once)

    def _send(
        self,
        url: str,
        hop: str,
        deadline: Deadline | None,
        headers: Mapping[str, str] | None = None,
        *,
        method: str = "GET",
        content: bytes | None = None,
    ) -> httpx.Response:
        """One request for `hop` (on the way from `url`), in its turn and within what is left
        of the deadline; its headers only, a redirect answered as it is (see follow)."""
        self._wait_turn(hop, deadline)
        timeout = float(settings.FETCH_TIMEOUT)
        if deadline is not None:
            if deadline.left() <= 0:
                raise _out_of_time(url, deadline)
            timeout = min(timeout, deadline.left())
        request = self.http.build_request(
            method, hop, timeout=httpx.Timeout(timeout), headers=headers, content=content
        )
        try:
            response = self.http.send(request, stream=True)
        except httpx.TimeoutException:
            raise self._no_answer(url, timeout) from None
        except httpx.TransportError as error:
            raise _TryAgain(f"connection failed: {_text(error)}") from None
        if deadline is not None:
            assert isinstance(response.stream, httpx.SyncByteStream)
            response.stream = _DeadlineStream(response.stream, deadline, url)
        return response

    @contextmanager
    def _reading(self, url: str, response: httpx.Response) -> Iterator[None]:
        """Reading a body: a connection lost midway is tried again; the answer closed after."""
        try:
            yield
        except httpx.TimeoutException:
            timeout = response.request.extensions.get("timeout", {}).get("read")
            raise self._no_answer(url, float(timeout or settings.FETCH_TIMEOUT)) from None
        except httpx.TransportError as error:
            raise _TryAgain(f"connection lost: {_text(error)}") from None
        finally:
            response.close()

    def _no_answer(self, url: str, timeout: float) -> Exception:
        """A request's timeout: tried again, unless the deadline cut it short (no time is left)
        or the client does not retry timeouts."""
        if self.retry_timeouts and timeout >= settings.FETCH_TIMEOUT:
            return _TryAgain(f"no answer within {timeout:g} s")
        return NoAnswer(url, f"no answer within {round(timeout, 1):g} s", seconds=timeout)

    def _wait_turn(self, hop: str, deadline: Deadline | None) -> None:
        """Wait for this request's turn: the service's (or the host's) minimum delay since any
        request of the site to it, from this process or another."""
        delay = self.service.delay
        if not delay:
            return
        name = self.service.name
        if self.service.per_host:
            origin = origin_of(hop)
            name = origin.host if origin else hop
        limit = self.max_turn_wait
        if deadline is not None:
            limit = deadline.left() if limit is None else min(limit, deadline.left())
        # A host's turns apart from those of a service that might be named like it.
        key = f"host:{name}" if self.service.per_host else name
        turn = _claim_turn(key, delay, self.clock(), limit)
        if turn is None:
            busy = f"{name} is busy; try again in a moment"
            raise ServiceBusy(self.service.base_url or hop, busy)
        # From the clock as it is now, after the claim's queries.
        wait = turn - self.clock()
        if wait > 0:
            self.sleep(wait)

    def _backoff(self, attempt: int) -> float:
        # 1, 2, 4, 8 s ... plus up to one base step of jitter.
        return self.backoff * (2 ** (attempt - 1)) + self.backoff * self.jitter()


def _text(error: httpx.TransportError) -> str:
    return str(error) or type(error).__name__


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


def asked_wait(headers: Mapping[str, str]) -> float | None:
    """The wait an answer asks before the next request, in seconds: the longer of Retry-After
    and Zotero's Backoff (seconds, sent with a 429 or 503 as well as with a success when the
    service is loaded); None if it asks none."""
    waits = [
        seconds
        for name in ("Retry-After", "Backoff")
        if (seconds := retry_after_seconds(headers.get(name, ""))) is not None
    ]
    return max(waits) if waits else None


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
