"""Redirects followed by hand, one hop at a time, each hop's URL checked before it is asked.

httpx's follow_redirects asks whatever URL a server names, an internal address included: a
service (or a path on it that redirects where it is told) could point the site's requests at
its own network. The two clients that ask outside servers follow them here instead, each with
its own rule for a hop: the PDF fetcher (pdfs.fetching: the hosts of PDF_FETCH_HOSTS) and the
client of the metadata services (papers.sources.client: the service's own origin).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

MAX_REDIRECTS = 5


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


class RedirectRefused(Exception):
    """A redirect that was not followed: to `hop` (why: `problem`), or one too many."""

    def __init__(self, message: str, *, hop: str = "", problem: str = ""):
        self.hop = hop
        self.problem = problem
        super().__init__(message)


def follow(
    url: str,
    send: Callable[[str], httpx.Response],
    hop_problem: Callable[[str], str],
    *,
    max_redirects: int = MAX_REDIRECTS,
) -> tuple[httpx.Response, str]:
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
        if not response.is_redirect:
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
