"""A venue's papers, reviews and decisions from OpenReview's API, as import records.

API v2 (OPENREVIEW_API_URL, /notes): the notes whose `content.venueid` is the venue (its
accepted papers once decisions are out), then those of its submission invitation
(`VENUE_ID/-/Submission`: every submission of a venue still under review, and the rejected
and withdrawn ones, whose venueid is another), each query paged with `offset` and `limit` (at
most 1000 a page, as openreview-py's get_all_notes pages) until a page comes back short or
`count` notes were read. `details=replies` brings each submission's reviews, meta-reviews and
decisions inside it. A venue of API v1 (before 2023) has no notes in v2: its blind or plain
submission invitation is read from API v1 (OPENREVIEW_API_V1_URL) the same way.

Each note is mapped by the file reader's own mapping (papers.importing.openreview.note_records),
so a fetched note and a saved one become the same records, authors with their profile ids
(`content.authorids`). A note is seen once even when both queries return it. Records are
numbered in fetch order (their `line`). A page that is not `{"notes": [...]}` is a FetchError
naming its URL; one note on it that the mapping cannot read (no content, a title that is not
text, a value of the wrong type) or whose paper is not valid is left out with a warning naming
the page and the note, as is one malformed reply of a paper that is kept: the rest of the
page is still imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from papers.importing.openreview import note_records
from papers.importing.records import ImportFailed, PaperRecord, Record, validate_record
from papers.sources.client import FetchClient, FetchError, service

# OpenReview's largest page.
PAGE_SIZE = 1000
# More pages than any venue has (a million notes): a server that never sends a short page
# must not keep a fetch going for ever.
MAX_PAGES = 1000

# Called after each page with the notes read so far and the total the API announced (0 when
# it announced none).
PageProgress = Callable[[int, int], None]
ClientFactory = Callable[[str], FetchClient]


def source_for(venue_id: str) -> str:
    """The source a venue's records are merged and reported under."""
    return f"openreview:{venue_id}"


@dataclass
class VenueFetch:
    venue_id: str
    source: str
    api: str = "v2"  # or "v1": which API had the venue's notes
    notes: int = 0
    records: list[Record] = field(default_factory=list)
    # What was left out and why, one line each naming the page and the note.
    warnings: list[str] = field(default_factory=list)

    @property
    def papers(self) -> int:
        return sum(1 for record in self.records if isinstance(record, PaperRecord))


def fetch_venue(
    venue_id: str,
    *,
    page_size: int | None = None,
    progress: PageProgress | None = None,
    client: ClientFactory | None = None,
) -> VenueFetch:
    """Every paper note of `venue_id` with its replies, as records; FetchError on failure."""
    venue_id = venue_id.strip().strip("/")
    page_size = page_size or PAGE_SIZE
    make_client = client or (lambda name: FetchClient(service(name)))
    fetch = VenueFetch(venue_id, source_for(venue_id))
    seen: set[str] = set()
    with make_client("openreview") as v2:
        for params in (
            {"content.venueid": venue_id},
            {"invitation": f"{venue_id}/-/Submission"},
        ):
            _read_query(v2, params, fetch, seen, page_size, progress)
    if fetch.notes:
        return fetch
    fetch.api = "v1"
    with make_client("openreview_v1") as v1:
        for invitation in (f"{venue_id}/-/Blind_Submission", f"{venue_id}/-/Submission"):
            _read_query(v1, {"invitation": invitation}, fetch, seen, page_size, progress)
            if fetch.notes:
                return fetch
        raise FetchError(
            v1.url("/notes", {"invitation": f"{venue_id}/-/Submission"}),
            f"OpenReview has no notes for the venue {venue_id!r} (API v2 nor v1); "
            "is the venue id right (e.g. ICLR.cc/2025/Conference)?",
        )


def fetch_forum(forum_id: str, *, client: ClientFactory | None = None) -> VenueFetch | None:
    """One paper's forum (its note with its replies), as records merged under the source of its
    venue (content.venueid; "openreview:forum" when it has none). API v2 first (the note by
    id, replies in its details), else API v1 (every note of the forum, replies included).
    None when neither has the forum or it is not public (OpenReview answers 403 for a forum
    under blind review); FetchError when OpenReview fails."""
    make_client = client or (lambda name: FetchClient(service(name)))
    for api, params in (
        ("openreview", {"id": forum_id, "details": "replies"}),
        ("openreview_v1", {"forum": forum_id}),
    ):
        with make_client(api) as http:
            try:
                fetched = http.get_json("/notes", params)
            except FetchError as error:
                if error.status in (400, 403, 404):  # no such note (v2 says 404 or 400)
                    continue
                raise
        notes = fetched.data.get("notes")
        if not isinstance(notes, list):
            raise FetchError(fetched.url, 'expected {"notes": [...]}, the answer has no list')
        if notes:
            return _forum_records(forum_id, notes, fetched.url, api)
    return None


def _forum_records(forum_id: str, notes: list[Any], url: str, api: str) -> VenueFetch | None:
    # The paper's own note first: its venue names the source, and reviews follow their paper.
    own = [note for note in notes if isinstance(note, dict) and note.get("id") == forum_id]
    if not own:
        return None
    notes = own + [note for note in notes if note is not own[0]]
    content = own[0].get("content")
    venue_id = _plain(content.get("venueid")) if isinstance(content, dict) else ""
    fetch = VenueFetch(venue_id or "forum", source_for(venue_id or "forum"))
    fetch.api = "v2" if api == "openreview" else "v1"
    fetch.notes += 1
    try:  # the paper itself: without it there is nothing to add
        fetch.records.extend(
            note_records(own[0], fetch.source, fetch.notes, skip=_skipper(fetch, url, forum_id))
        )
    except ImportFailed as error:
        raise FetchError(url, f"note {fetch.notes}: {error.message}") from None
    for note in notes[1:]:  # API v1's replies, each a note of the forum
        _add_note(fetch, note, url)
    return fetch


def _plain(value: Any) -> str:
    """A content field as API v2 wraps it ({"value": ...}) or v1 gives it."""
    if isinstance(value, dict):
        value = value.get("value")
    return value.strip() if isinstance(value, str) else ""


def _read_query(
    http: FetchClient,
    params: dict[str, str],
    fetch: VenueFetch,
    seen: set[str],
    page_size: int,
    progress: PageProgress | None,
) -> None:
    for url, notes, count in _pages(http, params, page_size):
        for note in notes:
            note_id = note.get("id") if isinstance(note, dict) else None
            if isinstance(note_id, str):
                if note_id in seen:
                    continue  # both queries return an accepted paper
                seen.add(note_id)
            _add_note(fetch, note, url)
        if progress:
            progress(fetch.notes, count)


def _add_note(fetch: VenueFetch, note: Any, url: str) -> None:
    """The records of one note of the page at `url`, its paper validated as the import will;
    a note that cannot be read, or whose paper is not valid, is left out with a warning."""
    fetch.notes += 1
    note_id = note.get("id") if isinstance(note, dict) else None
    # A note without an id is named by its place in the fetch.
    name = note_id if isinstance(note_id, str) and note_id.strip() else f"#{fetch.notes}"
    try:
        records = note_records(note, fetch.source, fetch.notes, skip=_skipper(fetch, url, name))
        for record in records:
            if isinstance(record, PaperRecord):
                validate_record(record)
    except ImportFailed as error:
        fetch.warnings.append(f"{url}: note {name}: {error.message}; the note was left out")
        return
    fetch.records.extend(records)


def _skipper(fetch: VenueFetch, url: str, name: str) -> Callable[[ImportFailed], None]:
    """What note_records hands a malformed reply of note `name` to: a warning."""

    def skip(error: ImportFailed) -> None:
        fetch.warnings.append(f"{url}: note {name}: {error.message}; left out, the paper kept")

    return skip


def _pages(
    http: FetchClient, params: dict[str, str], page_size: int
) -> Iterator[tuple[str, list[Any], int]]:
    """(url, notes, announced count) for each page of one query."""
    offset = 0
    for _ in range(MAX_PAGES):
        query: dict[str, str | int] = {
            **params,
            "details": "replies",
            "limit": page_size,
            "offset": offset,
        }
        fetched = http.get_json("/notes", query)
        notes = fetched.data.get("notes")
        if not isinstance(notes, list):
            raise FetchError(fetched.url, 'expected {"notes": [...]}, the answer has no list')
        count = fetched.data.get("count")
        if isinstance(count, bool) or not isinstance(count, int):
            count = 0
        yield fetched.url, notes, count
        offset += len(notes)
        if len(notes) < page_size or (count and offset >= count):
            return
    raise FetchError(http.url("/notes", params), f"more than {MAX_PAGES} pages; stopped")
