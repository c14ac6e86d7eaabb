"""Local stand-ins of OpenReview's API v2 and arXiv's API, for the fetch tests and benchmark.

One threaded http.server on 127.0.0.1 (a free port) serves, under one base URL:
- /openreview/notes: a generated venue of `notes` submissions in the documented API v2 shape
  (values wrapped in {"value": ...}, `invitations`, `details.replies`), answered by query
  (`content.venueid`: the accepted papers; `invitation=VENUE/-/Submission`: every submission)
  and paged with offset/limit, `{"notes", "count"}` as the real API answers;
- /openreview/v1/notes: API v1, which has no notes of this venue;
- /arxiv/api/query: an Atom feed of `entries` papers, newest first, paged by start/max_results,
  titles folded over lines as arXiv sends them; with `id_list` (what a member's arXiv link
  asks), the entries of those ids, an empty feed for an id it does not have.

What the real services do now and then is switched on per page (`faults`): a 429 with
Retry-After, a 503, an answer slower than usual; each fires once, on the first request of that
page. `requests` counts every request served (a killed fetch is killed by it); `retitle`
changes a note at the source between two runs; a service named in `down` answers 503 to every
request until it is taken out again (an outage, which no retry rides out).

Standard library only, no Django: the benchmark runs the commands in child processes against
it, and the tests (tests/test_fetch_end_to_end.py) import it as they import the other bench
tools. The note and Atom builders are the ones the respx-based tests use too.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

VENUE = "ICLR.cc/2025/Conference"
ARXIV_QUERY = "cat:cs.LG"
DEFAULT_NOTES = 3_200
DEFAULT_ENTRIES = 2_200

# --- OpenReview notes, as the API v2 (and v1) write them --------------------------------------


def v2_note(
    note_id: str,
    title: str = "A Paper",
    *,
    number: int = 1,
    replies: list[dict] | None = None,
    **content: Any,
) -> dict:
    values = {
        "title": title,
        "authors": ["Ann One", "Bo Two"],
        "authorids": ["~Ann_One1", "~Bo_Two1"],
        "abstract": f"The abstract of {note_id}.",
        "venue": "ICLR 2025 Poster",
        "venueid": VENUE,
        "pdf": f"/pdf/{note_id}.pdf",
        **content,
    }
    return {
        "id": note_id,
        "forum": note_id,
        "number": number,
        "invitations": [f"{VENUE}/-/Submission", f"{VENUE}/-/Post_Submission"],
        "cdate": 1727740800000,
        "pdate": 1737590400000,
        "content": {name: {"value": value} for name, value in values.items() if value is not None},
        "details": {"replies": replies or []},
    }


def v2_reply(note_id: str, forum: str, kind: str, number: int = 1, **content: Any) -> dict:
    return {
        "id": note_id,
        "forum": forum,
        "replyto": forum,
        "invitations": [f"{VENUE}/Submission{number}/-/{kind}"],
        "cdate": 1731000000000,
        "content": {name: {"value": value} for name, value in content.items()},
    }


def v1_note(note_id: str, title: str, replies: list[dict] | None = None) -> dict:
    return {
        "id": note_id,
        "forum": note_id,
        "invitation": "ICLR.cc/2019/Conference/-/Blind_Submission",
        "content": {
            "title": title,
            "authors": ["Grace Hopper"],
            "abstract": f"The abstract of {note_id}.",
            "venue": "ICLR 2019 Poster",
        },
        "details": {"replies": replies or []},
    }


def page(queries: Mapping[tuple[str, str], list[dict]], params: Mapping[str, str]) -> dict:
    """The answer to one /notes request: the notes of the query its parameters name (by
    content.venueid or invitation), from `offset`, at most `limit`."""
    notes = next(
        (notes for (name, value), notes in queries.items() if params.get(name) == value), []
    )
    offset = int(params.get("offset", 0))
    limit = int(params.get("limit", 1000))
    return {"notes": notes[offset : offset + limit], "count": len(notes)}


# --- arXiv's Atom (API User's Manual 3.3) ------------------------------------------------------

NAMESPACES = (
    'xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"'
)


def atom_entry(
    arxiv_id: str = "2402.00001",
    version: int = 1,
    *,
    published: str = "2024-02-01T10:00:00Z",
    updated: str | None = None,
    title: str = "A title",
    summary: str = "An abstract.",
    authors: tuple[str, ...] = ("Ann One",),
    extra: str = "",
) -> str:
    """One <entry> as arXiv writes it; `extra` holds the optional arxiv: elements."""
    names = "".join(f"\n    <author>\n      <name>{name}</name>\n    </author>" for name in authors)
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{arxiv_id}v{version}</id>\n"
        f"    <updated>{updated or published}</updated>\n"
        f"    <published>{published}</published>\n"
        f"    <title>{title}</title>\n"
        f"    <summary>{summary}</summary>{names}\n"
        f'    <link href="http://arxiv.org/abs/{arxiv_id}v{version}" rel="alternate" '
        'type="text/html"/>\n'
        f'    <link title="pdf" href="http://arxiv.org/pdf/{arxiv_id}v{version}" rel="related" '
        'type="application/pdf"/>\n'
        '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
        '    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
        f"{extra}"
        "  </entry>\n"
    )


def feed(entries: list[str], *, total: int | None, start: int = 0) -> str:
    counts = (
        f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
        f"  <opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>\n"
        if total is not None
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<feed {NAMESPACES}>\n"
        '  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>\n'
        "  <title>ArXiv Query: search_query=cat:cs.LG</title>\n"
        "  <id>http://arxiv.org/api/cHxbiOdZaP56ODnBPIenZhzg5f8</id>\n"
        "  <updated>2024-03-01T00:00:00-05:00</updated>\n"
        f"{counts}{''.join(entries)}</feed>\n"
    )


# --- The generated venue and query ---------------------------------------------------------------

# Unicode names, and TeX accents as a name typed by hand may have them. The catalogue keeps an
# author's name as the service sends it, its TeX accents made letters as a title's are: the
# tests check every paper's authors, in order, against these.
AUTHORS = (
    "Zoë Ünal",
    "李雷",
    "Paul Erd\\H{o}s",
    "Ann One",
    "José Núñez",
    "Bo Two",
    'Kurt G\\"odel',
    "Ngozi Okafor",
)
# What OpenReview's content.authorids pairs with each of AUTHORS: the person's profile id, one
# person one id in every note, or an e-mail address for an author without a profile.
AUTHOR_IDS = (
    "~Zoe_Unal1",
    "~Lei_Li3",
    "~Paul_Erdos1",
    "~Ann_One1",
    "~Jose_Nunez1",
    "~Bo_Two1",
    "~Kurt_Godel1",
    "ngozi.okafor@example.org",
)
TITLES = (
    r"$\alpha$-VAE: Disentangling with a Tilted Prior",
    'Schr\\"odinger Bridges for Graphs',
    "Über-Parameterised Transformers Generalise",
    r"Regret Bounds of $O(\sqrt{T})$ for Bandits",
    "Diffusion Models — A Unicode Survey",
)
TRACKS = ("Poster", "Oral", "Reject")  # by note number, see venue_notes
DECISIONS = {"Poster": "Accept (poster)", "Oral": "Accept (oral)", "Reject": "Reject"}


def track_of(number: int) -> str:
    """Poster for most notes, Oral for one in ten, Reject for one in five."""
    if number % 10 == 0:
        return "Oral"
    return "Reject" if number % 5 == 1 else "Poster"


def authors_of(number: int) -> list[str]:
    """Two to four names, in the paper's order; rotated so order matters."""
    count = 2 + number % 3
    return [AUTHORS[(number + step * 3) % len(AUTHORS)] for step in range(count)]


def author_ids_of(number: int) -> list[str]:
    """content.authorids of note `number`, beside authors_of(number)."""
    return [AUTHOR_IDS[AUTHORS.index(name)] for name in authors_of(number)]


def note_id(number: int) -> str:
    return f"sTand{number:05d}"


def title_of(number: int) -> str:
    return f"{TITLES[number % len(TITLES)]} ({number})"


def venue_notes(count: int) -> list[dict]:
    """`count` submissions numbered from 1. Two in three have replies: reviews rated as
    OpenReview writes ratings ("6: marginally above ..." in older forms, a number in newer
    ones), a meta-review and the decision; the rest are papers without replies yet."""
    notes = []
    for number in range(1, count + 1):
        forum, track = note_id(number), track_of(number)
        replies = []
        if number % 3:
            replies = [
                v2_reply(
                    f"{forum}R1",
                    forum,
                    "Official_Review",
                    number,
                    rating="6: marginally above the acceptance threshold",
                    confidence="3: You are fairly confident in your assessment",
                ),
                v2_reply(f"{forum}R2", forum, "Official_Review", number, rating=8, confidence=4),
                v2_reply(f"{forum}M", forum, "Meta_Review", number, recommendation="Fine."),
                v2_reply(f"{forum}D", forum, "Decision", number, decision=DECISIONS[track]),
            ]
        accepted = track != "Reject"
        notes.append(
            v2_note(
                forum,
                title_of(number),
                number=number,
                replies=replies,
                authors=authors_of(number),
                authorids=author_ids_of(number),
                venue=f"ICLR 2025 {track}" if accepted else "Submitted to ICLR 2025",
                venueid=VENUE if accepted else f"{VENUE}/Rejected_Submission",
            )
        )
    return notes


def arxiv_id_of(index: int) -> str:
    return f"24{1 + index // 10_000 % 12:02d}.{index % 10_000:05d}"


def arxiv_entries(count: int, *, first_day: date = date(2024, 12, 1)) -> list[str]:
    """`count` entries newest first, a few an hour, each title folded over two lines."""
    entries = []
    for index in range(count):
        when = first_day - timedelta(hours=index)
        words = TITLES[index % len(TITLES)].split(" ", 2)
        title = "\n  ".join([" ".join(words[:2]), *words[2:]]) + f" {index}"
        entries.append(
            atom_entry(
                arxiv_id_of(index),
                published=f"{when:%Y-%m-%dT%H}:00:00Z",
                title=title,
                summary=f"We study {index} things.\n  Over two lines.",
                authors=tuple(authors_of(index)),
            )
        )
    return entries


# --- The server ----------------------------------------------------------------------------------

THROTTLE, UNAVAILABLE, SLOW = "429", "503", "slow"


def usual_faults(openreview_page: int = 1000, arxiv_page: int = 100) -> dict[tuple[str, int], str]:
    """One of each on each service: the second page 429, the third 503, the fourth slow."""
    faults = {}
    for service, size in (("openreview", openreview_page), ("arxiv", arxiv_page)):
        faults.update({(service, size): THROTTLE, (service, 2 * size): UNAVAILABLE})
        faults[(service, 3 * size)] = SLOW
    return faults


class StandIn:
    """Both services on one local server; a context manager (or start() and stop())."""

    def __init__(
        self,
        *,
        notes: int = DEFAULT_NOTES,
        entries: int = DEFAULT_ENTRIES,
        faults: Mapping[tuple[str, int], str] | None = None,
        retry_after: int = 1,
        slow_seconds: float = 1.0,
    ):
        self.notes = venue_notes(notes)
        self.entries = arxiv_entries(entries)
        self.entry_ids = {arxiv_id_of(index): index for index in range(entries)}
        # Services answering 503 to everything: "openreview", "arxiv".
        self.down: set[str] = set()
        # (service, offset or start) -> fault; popped when it fires, so each fires once.
        self.faults = dict(faults or {})
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.requests = 0
        self.log: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def urls(self) -> dict[str, str]:
        """The settings (and environment variables) that point the app at this server."""
        return {
            "OPENREVIEW_API_URL": f"{self.base_url}/openreview",
            "OPENREVIEW_API_V1_URL": f"{self.base_url}/openreview/v1",
            "ARXIV_API_URL": f"{self.base_url}/arxiv/api/query",
        }

    def start(self) -> StandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def retitle(self, number: int, title: str) -> None:
        """Change note `number`'s title at the source, as an author editing it would."""
        with self._lock:
            self.notes[number - 1]["content"]["title"] = {"value": title}

    def answer(self, path: str) -> tuple[int, bytes, dict[str, str], float]:
        """(status, body, headers, seconds to wait first) for a GET of `path`."""
        url = urlsplit(path)
        params = dict(parse_qsl(url.query))
        with self._lock:
            self.requests += 1
            self.log.append(path)
            if url.path == "/openreview/notes":
                service, position = "openreview", params.get("offset", "0")
                body = json.dumps(self._notes_page(params), ensure_ascii=False).encode()
            elif url.path == "/openreview/v1/notes":
                return 200, b'{"notes": [], "count": 0}', {}, 0.0
            elif url.path == "/arxiv/api/query" and "id_list" in params:
                service, position = "arxiv", "0"
                wanted = [self.entry_ids.get(i) for i in params["id_list"].split(",")]
                entries = [self.entries[index] for index in wanted if index is not None]
                body = feed(entries, total=len(entries)).encode()
            elif url.path == "/arxiv/api/query":
                service, position = "arxiv", params.get("start", "0")
                start, size = int(position), int(params.get("max_results", "10"))
                entries = self.entries[start : start + size]
                body = feed(entries, total=len(self.entries), start=start).encode()
            else:
                return 404, b"{}", {}, 0.0
            if service in self.down:
                return 503, b"down for maintenance", {}, 0.0
            fault = self.faults.pop((service, int(position)), None)
        if fault == THROTTLE:
            return 429, b'{"error": "slow down"}', {"Retry-After": str(self.retry_after)}, 0.0
        if fault == UNAVAILABLE:
            return 503, b"busy", {}, 0.0
        return 200, body, {}, self.slow_seconds if fault == SLOW else 0.0

    def _notes_page(self, params: Mapping[str, str]) -> dict:
        accepted = [n for n in self.notes if n["content"]["venueid"]["value"] == VENUE]
        queries = {
            ("content.venueid", VENUE): accepted,
            ("invitation", f"{VENUE}/-/Submission"): self.notes,
        }
        return page(queries, params)


def _handler(stand_in: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the real services and httpx use it

        def do_GET(self) -> None:
            status, body, headers, wait = stand_in.answer(self.path)
            time.sleep(wait)
            xml = self.path.startswith("/arxiv/")
            self.send_response(status)
            kind = "application/atom+xml" if xml else "application/json"
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the tests' and the benchmark's output stay clean

    return Handler
