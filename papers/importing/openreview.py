"""Reader for notes saved from OpenReview's `/notes` endpoint (API v2, and v1).

Three shapes are read, told apart by the first JSON value in the file:

- one document `{"notes": [note, ...], "count": N}`, as the endpoint returns it, on one line or
  pretty-printed over many; other top-level keys are ignored;
- JSON lines, one note object per line (blank lines allowed): the first object of the file has
  no "notes" key;
- a JSON array of notes.

A note's `content` holds its fields. API v2 wraps each value (`"title": {"value": "..."}`), API v1
gives it plainly (`"title": "..."`); both are accepted, field by field. Per note:

- `title`, `authors` (a list of names, kept in order as given) with `authorids` beside them
  (each author's profile id, "~Jane_Doe1", or e-mail address; only profile ids are kept, and
  none when the two lists differ in length), `abstract` ("" when missing;
  validation rejects such a record), `keywords` (a list, or one string separated by semicolons,
  else by commas) and `primary_area`. LaTeX and Unicode are kept as given.
- `forum_id` is the note's `forum`, or its `id` when it has no forum; `forum_url` is
  https://openreview.net/forum?id=<forum_id>.
- `pdf` is usually a path on openreview.net ("/pdf/<hash>.pdf"); it is made absolute there.
  Absolute URLs are kept.
- `pdate` (the publication date, milliseconds since the epoch) gives `year`.
- `venue` gives the tags, see `venue_tags`: "ICLR 2024 oral" -> ["ICLR 2024", "Oral"]. A venue
  saying the paper was not accepted gives the venue with the paper's status as its track
  ("Submitted to ICLR 2024" -> ["ICLR 2024", "Submitted"], "ICLR 2024 Conference Withdrawn
  Submission" -> ["ICLR 2024", "Withdrawn"]; "Desk rejected", "Rejected"), so it never looks
  like an accepted paper whose track is not given: the track facet tells presented papers
  (Poster, Oral, ...) from the rest. The decision note itself comes with the reader for
  replies. `venueid` is a path ("ICLR.cc/2024/Conference") that `venue` already names for
  people; it is read only for a journal paper "Withdrawn by Authors", whose venue says no more.

Replies (reviews, comments, meta-reviews, decisions) are notes of a paper's forum too, never
read as papers: a note with a `replyto`, or whose `forum` differs from its `id`, is a reply,
whether or not it has a title (API v1 reviews and comments have one). `read_notes` (what an
import uses; `note_records` for one note, what papers.sources.openreview_api uses) turns the
replies that review or decide a paper into `ReviewRecord`s; `read` gives
the papers alone. Replies come as notes of their own anywhere in the file, or inside their
submission note as `details.replies` or `details.directReplies` (what `details=replies`
saves); an embedded reply's line is its submission's. A reply's kind comes from its invitation's
last part ("ICLR.cc/2024/Conference/Submission1/-/Official_Review", API v1's single
`invitation` too): Official_Review or Review, Meta_Review, Decision or Acceptance_Decision;
without a known invitation a `decision` in its content makes it a decision and a `rating` a
review. Comments, rebuttals and the rest are skipped. Per reply: `rating` and `confidence`, a
number or text starting with one ("6: marginally above the acceptance threshold": the number
and the text kept; text without a number is kept as the label alone, and reported as
cleaned), `decision` (a decision) or `recommendation` (a meta-review), its text fields in the
form's order, its `readers` (public when they include "everyone"), its signature, `cdate` and
`mdate` (milliseconds since the epoch): see papers.importing.review_notes. A file with no papers
and no reviews fails.

Each record's `line` is the line where its note object starts. Errors name the note's line and
the field ("content.authors must be a list of names (strings), got a number"). Values are
decoded with papers.importing.safe_json; a document's notes are decoded one at a time, so an
error inside one is located and nothing recurses on the file's nesting.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, NoReturn
from urllib.parse import quote

from papers.importing import jsonl, limits, review_notes
from papers.importing.json_scanner import JsonScanner
from papers.importing.records import ImportFailed, PaperRecord, Record, ReviewRecord, split_list
from papers.importing.tags import is_track_word
from papers.tags.identity import tag_name_problem
from papers.text import MAX_FORUM_ID, MAX_TAG_NAME, collapse_whitespace, cut_at_word

SITE = "https://openreview.net"
FORUM_URL = SITE + "/forum?id="

# How much of the text looks_like examines: the first note of any shape fits many times over.
_PROBE = 1_000_000
# The longest track phrase at the end of a venue ("notable top 5%").
_MAX_TRACK_WORDS = 4
# Venue strings OpenReview gives papers that were not (or not yet) accepted, with the status
# each gives as the paper's track; the group is the venue. The forms are those of OpenReview's
# own venue tests and of saved ICLR 2024 notes ("Submitted to X" is also what a rejected paper
# that was not withdrawn keeps). More specific forms come first: "desk rejected" before
# "rejected", both before a plain "submission".
_NOT_ACCEPTED = (
    (re.compile(r"submitted to (?P<venue>.+)", re.IGNORECASE), "Submitted"),
    (
        re.compile(r"(?P<venue>.+?) (?:conference )?withdrawn submission", re.IGNORECASE),
        "Withdrawn",
    ),
    (
        re.compile(r"(?P<venue>.+?) (?:conference )?desk rejected submission", re.IGNORECASE),
        "Desk rejected",
    ),
    (re.compile(r"(?P<venue>.+?) (?:conference )?rejected submission", re.IGNORECASE), "Rejected"),
    (
        re.compile(r"(?P<venue>.+?) (?:conference )?(?:blind )?submission", re.IGNORECASE),
        "Submitted",
    ),
    # OpenReview's journal workflow (TMLR, TACL, ...): "Under review for TMLR", "Rejected by
    # TMLR", "Desk rejected by TMLR"; an accepted paper says "TMLR" or "Accepted by TACL".
    (re.compile(r"under review for (?P<venue>.+)", re.IGNORECASE), "Submitted"),
    (re.compile(r"desk rejected by (?P<venue>.+)", re.IGNORECASE), "Desk rejected"),
    (re.compile(r"rejected by (?P<venue>.+)", re.IGNORECASE), "Rejected"),
    (re.compile(r"accepted by (?P<venue>.+)", re.IGNORECASE), "Accepted"),
)
ACCEPTED = "Accepted"
# A journal paper withdrawn by its authors says only "Withdrawn by Authors": its venue is the
# first part of its venueid ("TMLR/Withdrawn_Submission").
_WITHDRAWN_BY_AUTHORS = "withdrawn by authors"


def venue_tags(venue: str, venue_id: str = "") -> list[str]:
    """[venue] or [venue, track] for a note's venue string; [] for an empty one.

    A trailing track phrase known to papers.importing.tags is split off and capitalised:
    "ICLR 2024 poster" -> ["ICLR 2024", "Poster"], "NeurIPS 2023 Datasets and Benchmarks Oral"
    -> ["NeurIPS 2023 Datasets and Benchmarks", "Oral"], "ICLR 2023 notable top 5%" ->
    ["ICLR 2023", "Notable top 5%"]. A paper not accepted gets its status as the track, so
    the venue never reads as an acceptance on its own: "Submitted to X" and "X Conference
    (Blind) Submission" -> [X, "Submitted"], "X Conference Withdrawn Submission" -> [X,
    "Withdrawn"], likewise "Desk rejected" and "Rejected". A journal's statuses read the same
    way: "Under review for TMLR" -> ["TMLR", "Submitted"], "Rejected by TMLR" -> ["TMLR",
    "Rejected"], "Accepted by TACL" -> ["TACL", "Accepted"], and "Withdrawn by Authors" takes its
    venue from `venue_id` ("TMLR/Withdrawn_Submission" -> ["TMLR", "Withdrawn"]). A note with a
    `venue_id` whose venue names neither track nor status was accepted: "TMLR" -> ["TMLR",
    "Accepted"].
    """
    name = " ".join(venue.split())
    if not name:
        return []
    if name.casefold() == _WITHDRAWN_BY_AUTHORS:
        group = venue_id.strip().split("/", 1)[0].strip(". ")
        return [group, "Withdrawn"] if group else ["Withdrawn"]
    for pattern, status in _NOT_ACCEPTED:
        match = pattern.fullmatch(name)
        if match:
            return [match["venue"], status]
    words = name.split(" ")
    # Longest first: "talk" is a track word too, yet "invited talk" is the track.
    for count in range(min(_MAX_TRACK_WORDS, len(words) - 1), 0, -1):
        track = " ".join(words[-count:])
        if is_track_word(track):
            track = track.strip("()")
            return [" ".join(words[:-count]), track[:1].upper() + track[1:]]
    # A venue with a decision workflow (a venueid) that names no status has accepted the paper:
    # "Accepted" decides a paper imported earlier as "Under review for TMLR" (see
    # tags.superseded_tags), where "TMLR" alone would leave it "Submitted".
    if venue_id.strip() and not is_track_word(name):
        return [name, ACCEPTED]
    return [name]


def read(text: str, source: str) -> Iterator[PaperRecord]:
    """A record for each paper note in `text`, in file order; replies are skipped."""
    for record in read_notes(text, source, papers_only=True):
        if isinstance(record, PaperRecord):
            yield record


def read_notes(text: str, source: str, *, papers_only: bool = False) -> Iterator[Record]:
    """A record for each paper note and each review, meta-review and decision in `text`, in
    file order (a submission's embedded replies right after it)."""
    return _read(_notes(text, source), source, papers_only=papers_only)


def read_note_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """read_notes for notes as JSON lines, from numbered lines read as they come (each bounded
    by papers.importing.limits)."""
    return _read(jsonl.decoded_lines(lines, source), source, papers_only=False)


def note_records(
    note: Any, source: str, line: int, *, skip: Callable[[ImportFailed], None] | None = None
) -> list[Record]:
    """The records of one decoded note (as a file holds it, or as the API answers it): its
    paper then the reviews, meta-reviews and decisions embedded in it; for a reply note, its
    own review record if it is one. Raises ImportFailed at `line` for a malformed note.

    With `skip` (a fetch, which keeps what it can of a page), a malformed embedded reply is
    handed to it and left out, and the paper with its other replies is kept."""
    record = _record(note, source, line)
    if record is None:
        return list(_reviews(note, source, line, forum=""))
    records: list[Record] = [record]
    try:
        replies = _embedded_replies(note, source, line)
    except ImportFailed as error:
        if skip is None:
            raise
        skip(error)
        replies = []
    for reply in replies:
        try:
            records.extend(_reviews(reply, source, line, forum=record.forum_id))
        except ImportFailed as error:
            if skip is None:
                raise
            skip(error)
    return records


def _read(notes: Iterable[tuple[int, Any]], source: str, *, papers_only: bool) -> Iterator[Record]:
    papers = 0
    replies = 0
    reviews = 0
    for line, note in notes:
        if papers_only:  # replies are not even parsed
            record = _record(note, source, line)
            if record is None:
                replies += 1
            else:
                papers += 1
                yield record
            continue
        records = note_records(note, source, line)
        if records and isinstance(records[0], PaperRecord):
            papers += 1
            reviews += len(records) - 1
        else:
            replies += 1
            reviews += len(records)
        yield from records
    if not papers and not reviews and replies:
        raise ImportFailed(
            source,
            None,
            f"the file holds only replies to papers ({replies}: reviews, comments, decisions); "
            "replies are not imported"
            if papers_only
            else f"the file holds only replies to papers ({replies}), none of them a review, "
            "meta-review or decision",
        )
    if not papers and not reviews:
        raise ImportFailed(source, None, "no OpenReview notes in the file")


def looks_like(text: str) -> bool:
    """Whether the text starts like OpenReview notes: a {"notes": [...]} document, or JSON lines
    or an array whose first object is a note (an "id" or "forum", and a "content" object holding
    a "title"). Only the start of the text is decoded, at most _PROBE characters."""
    scan = JsonScanner(text[:_PROBE], "")
    start = scan.space(0)
    try:
        if scan.at(start) == "[":
            position = scan.space(start + 1)
            return scan.at(position) != "]" and _is_note(scan.decode(position, depth=1)[0])
        if scan.at(start) != "{":
            return False
        key, position = scan.member(start + 1, first=True)
        while key is not None:
            if key == "notes":
                if scan.at(position) != "[":
                    return False
                position = scan.space(position + 1)
                # A saved response that matched nothing is still OpenReview's shape.
                return scan.at(position) == "]" or _is_note(scan.decode(position, depth=2)[0])
            position = scan.decode(position, depth=1)[1]
            key, position = scan.member(position, first=False)
        # JSON lines: read only accepts a first note that is on a line of its own.
        note, end = scan.decode(start, depth=0)
        return "\n" not in scan.text[start:end] and _is_note(note)
    except ImportFailed:
        return False


def _is_note(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    content = value.get("content")
    has_id = isinstance(value.get("id"), str) or isinstance(value.get("forum"), str)
    # A reply (a review, a decision) has no title; saved from /notes?forum=... it can come first.
    is_reply = isinstance(value.get("replyto"), str)
    return has_id and isinstance(content, dict) and ("title" in content or is_reply)


def _notes(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """(line, value) for each note in the file, whichever of the three shapes it has. The
    document is in memory whole (its file bounded by IMPORT_MAX_FILE_BYTES); each note is
    bounded by IMPORT_MAX_RECORD_BYTES before it is decoded."""
    scan = JsonScanner(text, source, limits.max_record_bytes())
    start = scan.space(0)
    first = scan.at(start)
    if first == "[":
        scan.expect_end((yield from scan.elements(start, depth=1)), "']'")
    elif first == "{":
        if not (yield from _document(scan, start)):
            yield from jsonl.json_lines(text, source)
    elif first:
        scan.fail(start, 'expected OpenReview notes: {"notes": [...]}, a JSON array or JSON lines')


def _document(scan: JsonScanner, brace: int) -> Generator[tuple[int, Any], None, bool]:
    """The notes of the {"notes": [...]} document at `brace`. Returns False, having yielded
    nothing, when that object has no "notes" key: it is then the first note of JSON lines."""
    found = False
    key, position = scan.member(brace + 1, first=True)
    while key is not None:
        if key == "notes":
            if found:
                scan.fail(position, 'the key "notes" appears twice')
            if scan.at(position) != "[":
                scan.fail(position, '"notes" must be a JSON list [...] of notes')
            found = True
            position = yield from scan.elements(position, depth=2)
        else:
            position = scan.decode(position, depth=1)[1]
        key, position = scan.member(position, first=False)
    if found:
        scan.expect_end(position, "'}'")
    return found


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "true/false", str: "text"}.get(
        type(value), "a number"
    )


def _record(note: Any, source: str, line: int) -> PaperRecord | None:
    """The paper a note describes, or None for a reply."""

    def fail(message: str) -> NoReturn:
        raise ImportFailed(source, line, message)

    if not isinstance(note, dict):
        fail(f"each note must be a JSON object {{...}}, got {_kind(note)}")
    note_id, forum, reply_to = (_note_text(note, name, fail) for name in ("id", "forum", "replyto"))
    if reply_to or (forum and note_id and forum != note_id):
        return None
    content = note.get("content")
    if content is None:
        fail("note has no 'content' (the object holding title, authors, abstract, ...)")
    if not isinstance(content, dict):
        fail(f"'content' must be a JSON object {{...}}, got {_kind(content)}")
    forum_id = forum or note_id
    if not forum_id:
        fail("note has neither 'forum' nor 'id'")
    authors, author_ids = _authors(content, fail)
    return PaperRecord(
        title=_text(content, "title", fail).strip(),
        forum_id=forum_id,
        forum_url=FORUM_URL + quote(forum_id, safe=""),
        pdf_url=_pdf_url(_text(content, "pdf", fail).strip()),
        authors=authors,
        author_ids=author_ids,
        tags=venue_tags(_text(content, "venue", fail), _text(content, "venueid", fail)),
        abstract=_text(content, "abstract", fail),
        source=source,
        line=line,
        keywords=split_list(
            _value(content, "keywords", fail),
            what="content.keywords",
            source=source,
            line=line,
            semicolons=True,
        ),
        primary_area=_text(content, "primary_area", fail).strip(),
        year=_year(note, fail),
    )


def _year(note: dict, fail: Callable[[str], NoReturn]) -> int | None:
    """The year of the note's publication date (`pdate`, set when a venue publishes the paper):
    what a citation says when the venue names no year ("TMLR"). Not the creation date: an ICLR
    2024 paper was submitted in 2023, and its reference-manager entries say 2024."""
    return _timestamp(note, "pdate", fail).year if note.get("pdate") is not None else None


def _note_text(note: dict, name: str, fail) -> str:
    value = note.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        fail(f"note field {name!r} must be text, got {_kind(value)}")
    return value.strip()


def _value(content: dict, name: str, fail) -> Any:
    """A content field's value, whether wrapped as in API v2 or plain as in API v1."""
    value = content.get(name)
    if isinstance(value, dict):
        if "value" not in value:
            fail(
                f'content.{name} must be a value or {{"value": ...}}, got an object without "value"'
            )
        value = value["value"]
    return value


def _text(content: dict, name: str, fail) -> str:
    value = _value(content, name, fail)
    if value is None:
        return ""
    if not isinstance(value, str):
        fail(f"content.{name} must be text, got {_kind(value)}")
    return value


def _authors(content: dict, fail) -> tuple[list[str], list[str]]:
    """content.authors in order, and content.authorids beside them: what OpenReview pairs
    with each name, its profile id ("~Jane_Doe1") or, for an author without a profile, an
    e-mail address (validate_record keeps only the profile ids). authorids that are not a
    list as long as the names pair with no one and are left out."""
    names = _value(content, "authors", fail)
    if names is None:
        return [], []
    if not isinstance(names, list):
        fail(f"content.authors must be a list of names (strings), got {_kind(names)}")
    for number, item in enumerate(names, start=1):
        if not isinstance(item, str):
            fail(
                f"content.authors must be a list of names (strings); item {number} is {_kind(item)}"
            )
    ids = content.get("authorids")
    if isinstance(ids, dict):
        ids = ids.get("value")
    if not isinstance(ids, list) or len(ids) != len(names):
        ids = [""] * len(names)
    people = [
        (name.strip(), profile if isinstance(profile, str) else "")
        for name, profile in zip(names, ids, strict=True)
        if name.strip()
    ]
    return [name for name, _ in people], [profile for _, profile in people]


def _pdf_url(value: str) -> str:
    # "//host/..." would be a URL of another host, not a path on openreview.net.
    if value.startswith("/") and not value.startswith("//"):
        return SITE + value
    return value


# --- Replies: reviews, meta-reviews, decisions ---------------------------------------------

# The last part of a reply's invitation -> its kind (papers.models.Review.Kind).
_REPLY_KINDS = {
    "official_review": "review",
    "review": "review",
    "meta_review": "meta_review",
    "metareview": "meta_review",
    "decision": "decision",
    "acceptance_decision": "decision",
    "paper_decision": "decision",
}


def _embedded_replies(note: dict, source: str, line: int) -> list:
    details = note.get("details")
    if not isinstance(details, dict):
        return []
    found: dict[str, Any] = {}
    for key in ("replies", "directReplies"):
        replies = details.get(key)
        if replies is None:
            continue
        if not isinstance(replies, list):
            raise ImportFailed(source, line, f"details.{key} must be a list of notes")
        for reply in replies:
            # directReplies repeats replies' first level: one record per note id.
            reply_id = reply.get("id") if isinstance(reply, dict) else None
            found.setdefault(reply_id if isinstance(reply_id, str) else str(len(found)), reply)
    return list(found.values())


def _reply_kind(note: dict, content: Any) -> str | None:
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        invitations = []
    single = note.get("invitation")
    names = [*invitations, single] if isinstance(single, str) else invitations
    for invitation in names:
        if isinstance(invitation, str):
            kind = _REPLY_KINDS.get(invitation.rsplit("/", 1)[-1].casefold())
            if kind:
                return kind
    if isinstance(content, dict) and content.get("decision") is not None:
        return "decision"
    if isinstance(content, dict) and content.get("rating") is not None:
        return "review"
    return None


def _reviews(note: Any, source: str, line: int, *, forum: str) -> Iterator[ReviewRecord]:
    """The review record of one reply note, if it reviews or decides its paper; `forum` is
    the submission's when the reply was embedded in it."""

    def fail(message: str) -> NoReturn:
        raise ImportFailed(source, line, f"reply {note_id or '(no id)'}: {message}")

    note_id = ""
    if not isinstance(note, dict):
        raise ImportFailed(source, line, f"each reply must be a JSON object, got {_kind(note)}")
    content = note.get("content")
    kind = _reply_kind(note, content)
    if kind is None:
        return  # a comment, a rebuttal, a withdrawal: not a review
    note_id, forum_id = (_note_text(note, name, fail) for name in ("id", "forum"))
    forum_id = forum_id or forum
    if not note_id:
        fail("a review, meta-review or decision needs its note 'id'")
    if not forum_id:
        fail("a review, meta-review or decision needs the 'forum' of its paper")
    for label, value in (("id", note_id), ("forum", forum_id)):
        if len(value) > MAX_FORUM_ID:
            fail(f"note {label} is {len(value)} characters long; at most {MAX_FORUM_ID}")
    if not isinstance(content, dict):
        fail(f"'content' must be a JSON object {{...}}, got {_kind(content)}")
    texts, cleaned = review_notes.text_fields(content)
    rating, confidence = review_notes.Score(None, ""), review_notes.Score(None, "")
    decision = ""
    if kind == "review":
        rating, confidence = (review_notes.score(content.get(name)) for name in _SCORES)
    elif kind == "decision":
        decision = _decision(content, "decision", cleaned)
    elif kind == "meta_review":
        decision = _decision(content, "recommendation", cleaned)
    for name, given in zip(_SCORES, (rating, confidence), strict=True):
        if given.problem:
            cleaned.append(f"content.{name} {given.problem}")
    readers, public, problem = review_notes.readers(note)
    if problem:
        cleaned.append(problem)
    yield ReviewRecord(
        forum_id=forum_id,
        note_id=note_id,
        kind=kind,
        source=source,
        line=line,
        rating=rating.number,
        confidence=confidence.number,
        rating_label=rating.label,
        confidence_label=confidence.label,
        decision=decision,
        created=_note_date(note, ("cdate", "tcdate"), fail),
        modified=_note_date(note, ("mdate", "tmdate"), fail),
        texts=texts,
        readers=readers,
        public=public,
        reviewer=review_notes.reviewer(note),
        cleaned=[f"reply {note_id}: {note}" for note in cleaned],
    )


_SCORES = ("rating", "confidence")


def _decision(content: dict, name: str, cleaned: list[str]) -> str:
    """A decision or recommendation as a tag may name it: cut to fit, or "" (noted)."""
    value = review_notes.plain(content.get(name))
    if value is None:
        return ""
    if not isinstance(value, str):
        cleaned.append(f"content.{name} is not text; left out")
        return ""
    decision = cut_at_word(collapse_whitespace(value), MAX_TAG_NAME)
    if decision != collapse_whitespace(value):
        cleaned.append(f"content.{name}: cut to {MAX_TAG_NAME} characters")
    problem = tag_name_problem(decision) if decision else None
    if problem:
        cleaned.append(f"content.{name}: {problem} Left out.")
        return ""
    return decision


def _note_date(note: dict, names: tuple[str, ...], fail: Callable[[str], NoReturn]):
    for name in names:
        if note.get(name) is not None:
            return _timestamp(note, name, fail)
    return None


def _timestamp(note: dict, name: str, fail: Callable[[str], NoReturn]) -> datetime:
    value = note[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(f"note field {name!r} must be milliseconds since 1970, got {_kind(value)}")
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        fail(f"note field {name!r} ({value}) is not a date")
