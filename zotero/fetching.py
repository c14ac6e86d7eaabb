"""Reading a group library through Zotero's Web API v3, with the site's one outbound client.

Every request names API version 3 and carries the library's key (Zotero-API-Key). A read of
what changed since version V asks `since=V`, 100 objects a page, and follows each answer's
`Link: <...>; rel="next"` (only to the API's own origin: the key goes with it). All the pages of
one read must answer for the same library version (Last-Modified-Version): a library changed
midway is read again by the next run. `If-Modified-Since-Version: V` answered 304 means nothing
changed. A 429 or 503 is asked again after its Retry-After or Backoff (the client's retries);
a `Backoff: N` on a success asks for N seconds' rest before the next request, which is taken.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from papers.numbers import bounded_int
from papers.sources.client import (
    MAX_WAIT,
    FetchClient,
    FetchError,
    Response,
    asked_wait,
    json_of,
    service,
)
from papers.sources.redirects import same_origin

PAGE_SIZE = 100
API_VERSION = "3"
# More pages than this in one read is no real library (2,000,000 objects): stop.
MAX_PAGES = 20_000


class LibraryChanged(FetchError):
    """The library changed while it was being read: read it again later."""


@dataclass
class Read:
    """The objects of one read and the library version they are at."""

    objects: list[Any]
    version: int


class ZoteroReader:
    def __init__(
        self,
        group_id: int,
        api_key: str,
        *,
        client: FetchClient | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.prefix = f"/groups/{group_id}"
        self.client = client or FetchClient(service("zotero"), sleep=sleep)
        self.sleep = sleep
        self.headers = {"Zotero-API-Version": API_VERSION}
        if api_key:
            self.headers["Zotero-API-Key"] = api_key
        self._next_link_problem = same_origin(self.client.service.base_url, "Zotero")
        self._rest = 0.0  # what the last answer's Backoff asked before the next request

    def close(self) -> None:
        self.client.close()

    def changed_items(self, since: int) -> Read | None:
        """The items changed since library version `since`; None when nothing changed (304)."""
        return self._read("items", since, conditional=True)

    def changed_collections(self, since: int) -> Read:
        read = self._read("collections", since)
        assert read is not None
        return read

    def deleted(self, since: int) -> tuple[Any, int]:
        """/deleted's answer since `since` (its keys of items and collections), and its version."""
        response = self._get(f"{self.prefix}/deleted", {"since": since})
        return json_of(response).data, _version(response)

    def item(self, key: str) -> Any:
        """One item's JSON, as it is now (after a write was refused as stale)."""
        return json_of(self._get(f"{self.prefix}/items/{key}", {"format": "json"})).data

    def patch_item(self, key: str, changes: dict[str, Any], version: int) -> Response | None:
        """Write `changes` to item `key` if it is still at `version` (its answer, with the
        library's new version); None when it changed since (412): re-read it, never
        overwrite it."""
        if self._rest:
            self.sleep(min(self._rest, MAX_WAIT))
        response = self.client.write(
            "PATCH",
            f"{self.prefix}/items/{key}",
            changes,
            headers={**self.headers, "If-Unmodified-Since-Version": str(version)},
            answers=frozenset({412}),
        )
        self._rest = asked_wait(response.headers) or 0.0
        return None if response.status_code == 412 else response

    def create_collection(self, key: str, name: str, token: str) -> Response | None:
        """Create collection `key` named `name` (a key chosen here, so that it can be asked
        again without making two), once per `token` (Zotero-Write-Token: a request asked again
        after it landed answers 412, returned as None: it exists). Its answer names each object
        `successful` or `failed` by its index."""
        if self._rest:
            self.sleep(min(self._rest, MAX_WAIT))
        response = self.client.write(
            "POST",
            f"{self.prefix}/collections",
            [{"key": key, "name": name, "parentCollection": False}],
            headers={**self.headers, "Zotero-Write-Token": token},
            answers=frozenset({412}),
        )
        self._rest = asked_wait(response.headers) or 0.0
        return None if response.status_code == 412 else response

    def _read(self, what: str, since: int, *, conditional: bool = False) -> Read | None:
        params: dict[str, str | int] = {
            "since": since,
            "format": "json",
            "limit": PAGE_SIZE,
            "start": 0,
        }
        headers = {"If-Modified-Since-Version": str(since)} if conditional and since else {}
        response = self._get(f"{self.prefix}/{what}", params, headers)
        if response.status_code == 304:
            return None
        version = _version(response)
        objects: list[Any] = []
        for _ in range(MAX_PAGES):
            objects += json_of(response, expect=list).data
            next_url = response.links.get("next", {}).get("url", "")
            if not next_url:
                return Read(objects, version)
            if problem := self._next_link_problem(next_url):
                raise FetchError(next_url, f"Zotero's next page is elsewhere: {problem}")
            response = self._get(next_url)
            if _version(response) != version:
                raise LibraryChanged(next_url, "the library changed while it was read")
        raise FetchError(self.prefix, f"more than {MAX_PAGES} pages")

    def _get(
        self,
        path: str,
        params: dict[str, str | int] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        if self._rest:
            self.sleep(min(self._rest, MAX_WAIT))
        response = self.client.get(
            path, params, headers={**self.headers, **(headers or {})}, answers=frozenset({304})
        )
        self._rest = asked_wait(response.headers) or 0.0
        return response


def _version(response: Response) -> int:
    value = response.headers.get("Last-Modified-Version", "")
    version = bounded_int(value.strip(), low=0, high=2**62)
    if version is None:
        raise FetchError(str(response.request.url), "no Last-Modified-Version in the answer")
    return version
