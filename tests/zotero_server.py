"""A stand-in of Zotero's Web API v3 for one group library, on 127.0.0.1: the tests' own.

It keeps versions as Zotero does (https://www.zotero.org/support/dev/web_api/v3/syncing): each
write raises the library version and stamps the objects it wrote with it. It answers
`/groups/<id>/items`, `/collections` and `/deleted` with `since=`, pages of `limit` from `start`
with `Link: <...>; rel="next"` and `Total-Results`, `Last-Modified-Version` on every answer and
304 to `If-Modified-Since-Version` when nothing changed since. Answers queued in `refusals`
(a 429 with Retry-After and Backoff) come first. Nothing reaches the internet."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

API_KEY = "test-zotero-key"


class _Handler(BaseHTTPRequestHandler):
    server: ZoteroServer

    def do_GET(self) -> None:
        library = self.server
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with library.lock:
            library.requests.append((parts.path, query, dict(self.headers)))
            slow = library.pages_served >= library.slow_after_pages
        if slow:  # outside the lock: the test reads the server meanwhile
            time.sleep(library.slow_seconds)
        with library.lock:
            if self._refused():
                return
            version = library.version
            kind = parts.path.rsplit("/", 1)[-1]
            if parts.path.rsplit("/", 2)[-2] == "items":  # one item
                one = library.items.get(kind)
                if one is None:
                    self._answer(404, b"Not found")
                else:
                    self._json(one, one["version"])
                return
            asked = self.headers.get("If-Modified-Since-Version")
            if asked is not None and int(asked) >= version:
                self._answer(304, b"", {"Last-Modified-Version": str(version)})
                return
            since = int(query.get("since", 0))
            if kind == "deleted":
                body = {
                    "collections": [k for k, v in library.deleted_collections.items() if v > since],
                    "items": [k for k, v in library.deleted_items.items() if v > since],
                    "searches": [],
                    "tags": [],
                    "settings": [],
                }
                self._json(body, version)
                return
            objects = library.items if kind == "items" else library.collections
            changed = sorted(
                (o for o in objects.values() if o["version"] > since), key=lambda o: o["version"]
            )
            # Zotero's default page is 25 objects, its largest 100.
            start, limit = int(query.get("start", 0)), min(int(query.get("limit", 25)), 100)
            headers = {"Total-Results": str(len(changed))}
            links = []
            if start + limit < len(changed):
                after = urlencode({**query, "start": start + limit})
                links.append(f'<{library.url}{parts.path}?{after}>; rel="next"')
                last = urlencode({**query, "start": (len(changed) - 1) // limit * limit})
                links.append(f'<{library.url}{parts.path}?{last}>; rel="last"')
            if links:
                headers["Link"] = ", ".join(links)
            if library.backoff:
                headers["Backoff"] = str(library.backoff)
            page = changed[start : start + limit]
            self._json(page, version, headers)
            library.pages_served += 1
            # A write between two pages of one read (set by a test).
            if library.write_after_page is not None:
                library.write_after_page()
                library.write_after_page = None

    def do_PATCH(self) -> None:
        """An item's fields changed, if it is still at If-Unmodified-Since-Version (412 if
        not), as Zotero answers: 204 with the library's new version."""
        library = self.server
        key = urlsplit(self.path).path.rsplit("/", 1)[-1]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with library.lock:
            library.requests.append((self.path, {"PATCH": body}, dict(self.headers)))
            if self._refused():
                return
            current = library.items[key]
            if int(self.headers["If-Unmodified-Since-Version"]) < current["version"]:
                self._answer(412, b"Item has been modified since specified version")
                return
            library.patches.append((key, body))
            library.put_items({**current["data"], **body})
            self._answer(204, b"", {"Last-Modified-Version": str(library.version)})

    # --- Creating collections (zotero.push; tests/test_zotero_push_lists.py) ---------------

    def do_POST(self) -> None:
        """`POST /groups/<id>/collections` of a JSON array, as Zotero answers it: 200 with
        `successful` / `success` / `failed` by index and the library's new version; 412 for a
        Zotero-Write-Token already used (a request asked again after it landed)."""
        library = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with library.lock:
            library.requests.append((self.path, {"POST": body}, dict(self.headers)))
            if self._refused():
                return
            token = self.headers.get("Zotero-Write-Token", "")
            if token and token in library.write_tokens:
                self._answer(412, b"Write token already used")
                return
            answer: dict[str, dict] = {"successful": {}, "success": {}, "failed": {}}
            for index, data in enumerate(body):
                key = data.get("key") or f"NEW{len(library.collections):05d}"
                if key in library.collections:
                    failed = {"key": key, "code": 412, "message": "Collection exists"}
                    answer["failed"][str(index)] = failed
                    continue
                library.put_collection(key, data["name"])
                answer["successful"][str(index)] = library.collections[key]
                answer["success"][str(index)] = key
            if token:
                library.write_tokens.add(token)
            self._json(answer, library.version)

    # --- end of creating collections ---------------------------------------------------------

    def _refused(self) -> bool:
        """Whether the request was answered with a queued refusal, or a 403 for a wrong key."""
        if self.server.refusals:
            status, headers = self.server.refusals.pop(0)
            self._answer(status, b"", headers)
            return True
        if self.headers.get("Zotero-API-Key") != API_KEY:
            self._answer(403, b"Forbidden")
            return True
        return False

    def _json(self, body: Any, version: int, headers: dict[str, str] | None = None) -> None:
        extra = {"Last-Modified-Version": str(version), **(headers or {})}
        self._answer(200, json.dumps(body).encode(), extra, "application/json")

    def _answer(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        content_type: str = "text/plain",
    ) -> None:
        self.send_response(status)
        if status not in (204, 304):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if status not in (204, 304):
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet in test output
        pass


class ZoteroServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, group_id: int = 4711) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.group_id = group_id
        self.lock = threading.RLock()
        self.version = 0
        self.items: dict[str, dict] = {}
        self.collections: dict[str, dict] = {}
        self.deleted_items: dict[str, int] = {}
        self.deleted_collections: dict[str, int] = {}
        self.requests: list[tuple[str, dict, dict]] = []
        self.refusals: list[tuple[int, dict[str, str]]] = []
        self.backoff = 0
        self.write_after_page: Any = None
        self.patches: list[tuple[str, dict]] = []
        # Creating collections (do_POST): the write tokens used.
        self.write_tokens: set[str] = set()
        # Pages of items or collections answered; from `slow_after_pages` on, every request
        # waits `slow_seconds` before it is answered (a test kills its client meanwhile).
        self.pages_served = 0
        self.slow_after_pages = 10**9
        self.slow_seconds = 0.0
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about a client that went away (a test killed it) while it was answered."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    # Writes, as a Zotero client's would reach the library: each raises its version.

    def put_items(self, *datas: dict) -> None:
        with self.lock:
            self.version += 1
            for data in datas:
                data = {**data, "version": self.version}
                self.items[data["key"]] = {
                    "key": data["key"],
                    "version": self.version,
                    "library": {"type": "group", "id": self.group_id},
                    "data": data,
                }
                self.deleted_items.pop(data["key"], None)

    def put_collection(self, key: str, name: str) -> None:
        with self.lock:
            self.version += 1
            data = {"key": key, "version": self.version, "name": name, "parentCollection": False}
            self.collections[key] = {"key": key, "version": self.version, "data": data}

    def delete_item(self, key: str) -> None:
        with self.lock:
            self.version += 1
            del self.items[key]
            self.deleted_items[key] = self.version

    def delete_collection(self, key: str) -> None:
        with self.lock:
            self.version += 1
            del self.collections[key]
            self.deleted_collections[key] = self.version

    def asked(self, kind: str) -> list[tuple[dict, dict]]:
        """(query, headers) of each request for `kind` ("items", "collections", "deleted")."""
        return [(q, h) for path, q, h in self.requests if path.endswith(f"/{kind}")]


def start() -> ZoteroServer:
    server = ZoteroServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextmanager
def running(settings: Any) -> Iterator[ZoteroServer]:
    """A started stand-in the site's settings (pytest-django's `settings`) point the sync at,
    with its key; stopped after."""
    server = start()
    settings.ZOTERO_API_URL = server.url
    settings.ZOTERO_API_KEY = API_KEY
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def article(key: str, number: int, **fields: Any) -> dict:
    """A journal article's `data` as the API gives it (only the fields read here)."""
    return {
        "key": key,
        "itemType": "journalArticle",
        "title": f"Paper number {number}",
        "creators": [
            {"creatorType": "author", "firstName": "Ada", "lastName": f"Zeta{number}"},
            {"creatorType": "author", "firstName": "Bob", "lastName": "Alpha"},
            {"creatorType": "editor", "firstName": "Ed", "lastName": "Itor"},
            {"creatorType": "author", "name": "The Consortium"},
        ],
        "abstractNote": f"We study problem {number} and solve it.",
        "publicationTitle": "Journal of Things",
        "date": "2024-05-07",
        "DOI": f"10.1234/things.{number}",
        "url": "",
        "tags": [],
        "collections": [],
        "relations": {},
        **fields,
    }


def child_note(key: str, parent: str, html: str) -> dict:
    return {"key": key, "itemType": "note", "parentItem": parent, "note": html, "tags": []}


def attachment(key: str, parent: str, url: str, content_type: str = "application/pdf") -> dict:
    return {
        "key": key,
        "itemType": "attachment",
        "parentItem": parent,
        "linkMode": "linked_url",
        "title": "Full Text PDF",
        "url": url,
        "contentType": content_type,
        "tags": [],
    }


# --- A lab's library at scale (tests/test_zotero_scale.py) ---------------------------------

_FIRST = ["Ada", "Bo", "Chen", "Dara", "Emil", "Fatima", "Gus", "Hana", "Ivo", "Jun", "Kai"]
_LAST = ["Abe", "Brandt", "Costa", "Dubois", "Eriksen", "Fujita", "Garcia", "Haddad", "Ito"]
_LAST += ["Jansen", "Kowalski", "Lund", "Moreau", "Novak", "Okafor", "Park", "Quist", "Rossi"]
TAG_POOL = ["diffusion", "transformers", "to read", "graphs", "RL", "vision", "theory"]
TAG_POOL += ["benchmarks", "robustness", "speech", "must discuss", "retrieval"]
ITEM_TYPES = ["journalArticle", "conferencePaper", "preprint"]


def group_item(i: int) -> dict:
    """Paper item `i` of group_library (deterministic): a journal article with a DOI, a
    conference paper with a DOI or none, or a preprint with its arXiv link or, one in five,
    no identifier at all; 1 to 4 authors in a fixed order, sometimes an editor (no author)
    and an institution's one-field name; one or two tags; one or two collections, or none."""
    item_type = ITEM_TYPES[i % 3]
    creators = [
        {
            "creatorType": "author",
            "firstName": _FIRST[(i + j) % len(_FIRST)],
            "lastName": _LAST[(i * 3 + j * 7) % len(_LAST)],
        }
        for j in range(1 + i % 4)
    ]
    if i % 7 == 0:
        creators.insert(1, {"creatorType": "editor", "firstName": "Ed", "lastName": "Itor"})
    if i % 11 == 0:
        creators.append({"creatorType": "author", "name": f"The {_LAST[i % len(_LAST)]} Lab"})
    doi, url = "", ""
    if item_type == "journalArticle" or (item_type == "conferencePaper" and i % 2 == 0):
        doi = f"10.5555/group.{i}"
    elif item_type == "preprint" and i % 5:
        url = f"https://arxiv.org/abs/2401.{i:05d}"
    tags = [{"tag": TAG_POOL[i % len(TAG_POOL)]}]
    if i % 2:
        second = TAG_POOL[(i * 5 + 3) % len(TAG_POOL)]
        if second != tags[0]["tag"]:
            tags.append({"tag": second, "type": 1})
    collections = [] if i % 17 == 0 else [group_collection_key(i % 20)]
    if i % 3 == 0 and (i * 7 + 1) % 20 != i % 20 and collections:
        collections.append(group_collection_key((i * 7 + 1) % 20))
    venue = {"journalArticle": "publicationTitle", "conferencePaper": "proceedingsTitle"}
    return {
        "key": group_item_key(i),
        "itemType": item_type,
        "title": f"Learning structure {i} from many small signals",
        "creators": creators,
        "abstractNote": f"We study problem {i} of the group library and say what we found.",
        venue.get(item_type, "repository"): "Journal of Things" if i % 3 == 0 else "",
        "date": f"{2015 + i % 10}-0{1 + i % 9}-1{i % 10}",
        "DOI": doi,
        "url": url,
        "tags": tags,
        "collections": collections,
        "relations": {},
    }


def group_item_key(i: int) -> str:
    return f"GRP{i:05d}"


def group_collection_key(c: int) -> str:
    return f"COLL{c:04d}"


def group_library(server: ZoteroServer, count: int = 2000) -> None:
    """A lab's library of `count` paper items (group_item), written in batches of 100 as a
    Zotero client syncs (each batch a library version), 20 collections, a child note on
    every tenth item and a PDF link on every fiftieth."""
    for c in range(20):
        server.put_collection(group_collection_key(c), f"Topic {c:02d}")
    for start in range(1, count + 1, 100):
        batch = []
        for i in range(start, min(start + 100, count + 1)):
            batch.append(group_item(i))
            if i % 10 == 0:
                html = f"<p>Notes on <b>paper {i}</b>.</p><p>Compare with {i - 1}.</p>"
                batch.append(child_note(f"NOTE{i:04d}", group_item_key(i), html))
            if i % 50 == 0:
                url = f"https://example.org/pdfs/{i}.pdf"
                batch.append(attachment(f"ATTA{i:04d}", group_item_key(i), url))
        server.put_items(*batch)
