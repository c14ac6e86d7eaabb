"""Redirects followed by hand, one hop at a time, each hop's URL checked before it is asked.

httpx's follow_redirects asks whatever URL a server names, an internal address included: a
service (or a path on it that redirects where it is told) could point the site's requests at
its own network. The one outbound client (papers.sources.client) follows them here instead,
with the rule for a hop its caller gives: a service's own origin (`same_origin`, the metadata
services) or the hosts of a list (`allow_list`, PDF_FETCH_HOSTS for PDFs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 5

# Why a URL may not be asked ("" when it may).
HopRule = Callable[[str], str]


@dataclass(frozen=True)
class Origin:
    scheme: str
    host: str
    port: int


def origin_of(url: str) -> Origin | None:
    """Scheme, host and port of an http(s) `url` (the default port when none is written);
    None for anything else, or a URL that cannot be read."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number or out of range, an unclosed "[" of IPv6
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    default = 443 if parts.scheme == "https" else 80
    return Origin(parts.scheme, parts.hostname.lower(), port or default)


def has_credentials(url: str) -> bool:
    """Whether `url` carries a user name or password (never sent anywhere)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.username is not None or parts.password is not None


def same_origin(base_url: str, name: str) -> HopRule:
    """Hops within the origin of `base_url` (a service's own), without credentials; `name`
    (the service's) says where a refused hop would have left."""
    home = origin_of(base_url)

    def problem(url: str) -> str:
        if origin_of(url) != home or has_credentials(url):
            return f"off {name}"
        return ""

    return problem


def allowed_origins(entries: Iterable[str]) -> frozenset[Origin]:
    """An allow-list as origins: a bare host means https on port 443."""
    origins = set()
    for entry in entries:
        origin = origin_of(entry if "://" in entry else f"https://{entry}")
        if origin is not None:
            origins.add(origin)
    return frozenset(origins)


def allow_list(entries: Iterable[str], setting: str) -> HopRule:
    """URLs that are https on a listed host, or exactly a listed origin written with its
    scheme (http://127.0.0.1:8765, a local stand-in); `setting` names the list in messages."""
    allowed = allowed_origins(entries)

    def problem(url: str) -> str:
        try:
            scheme = urlsplit(url).scheme
        except ValueError:  # an unclosed "[" of an IPv6 host
            return "not a usable URL"
        if scheme not in ("http", "https"):
            return "not an http(s) URL"
        if has_credentials(url):
            return "a URL with credentials in it is never fetched"
        origin = origin_of(url)
        if origin is None:
            return "not a usable URL"
        if origin not in allowed:
            https = origin.scheme == "https" and origin.port == 443
            return f"{origin.host if https else _written_origin(url)} is not in {setting}"
        return ""

    return problem


def _written_origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class RedirectRefused(Exception):
    """A redirect that was not followed: to `hop` (why: `problem`), or one too many."""

    def __init__(self, message: str, *, hop: str = "", problem: str = ""):
        self.hop = hop
        self.problem = problem
        super().__init__(message)


class Answer(Protocol):
    """What `follow` reads of an answer (an httpx.Response, in the client)."""

    @property
    def is_redirect(self) -> bool: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def close(self) -> None: ...


AnswerT = TypeVar("AnswerT", bound=Answer)


def follow(
    url: str,
    send: Callable[[str], AnswerT],
    hop_problem: HopRule,
    *,
    max_redirects: int = MAX_REDIRECTS,
) -> tuple[AnswerT, str]:
    """The first answer on the way from `url` that is not a redirect, and the URL it answered
    for. `send` asks one URL (without following redirects); `hop_problem` says why a hop may
    not be asked ("" when it may), and is asked before each one. A redirect's own answer is
    closed before the next hop. RedirectRefused for a hop refused or past `max_redirects`."""
    current = url
    for hop in range(max_redirects + 1):
        if hop:
            problem = hop_problem(current)
            if problem:
                raise RedirectRefused(
                    f"redirected to {current}: {problem}", hop=current, problem=problem
                )
        response = send(current)
        # A 3xx without a Location (a 304 Not Modified) is an answer, not a redirect.
        if not response.is_redirect or "Location" not in response.headers:
            return response, current
        location = response.headers["Location"]
        response.close()
        try:
            current = urljoin(current, location)
        except ValueError:  # an unclosed "[" of an IPv6 host
            raise RedirectRefused(
                f"redirected to {location!r}: not a usable URL",
                hop=location,
                problem="not a usable URL",
            ) from None
    raise RedirectRefused(f"more than {max_redirects} redirects")
