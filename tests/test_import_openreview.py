"""The OpenReview notes reader: v2 and v1 notes in all three file shapes, replies skipped, errors
located at the note's line and naming the field. Pure parsing, no database."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from papers.importing import formats, openreview
from papers.importing.records import ImportFailed, ReviewRecord, validate_record

DATA = Path(__file__).resolve().parent / "data" / "openreview"
SAMPLE = DATA / "iclr2024_notes_v2.json"


def v2_note(note_id="Abc_123", title="A Paper", **fields):
    """One API v2 note on a single line; `fields` are content fields, wrapped as v2 wraps them."""
    content = {"title": title, "authors": ["Ann One"], "abstract": "An abstract.", **fields}
    wrapped = {name: {"value": value} for name, value in content.items() if value is not None}
    return json.dumps({"id": note_id, "forum": note_id, "content": wrapped}, ensure_ascii=False)


def read(text: str, source: str = "n.jsonl"):
    return list(openreview.read(text, source))


def failure(text: str, source: str = "n.jsonl") -> str:
    with pytest.raises(ImportFailed) as caught:
        read(text, source)
    return str(caught.value)


def test_pretty_printed_v2_document_gives_papers_at_their_lines_and_skips_the_review():
    records = read(SAMPLE.read_text(encoding="utf-8"), "or.json")
    assert [(r.forum_id, r.line) for r in records] == [
        ("aB3dE_f-01", 3),
        ("Gh7_pOsTer", 68),
        ("NotAcc3pt0", 94),
    ]
    oral, poster, submitted = records
    assert oral.title == "$\\alpha$-VAE: Disentangling with a Tilted Prior"
    assert oral.authors == ["Zoë Ünal", "李雷", "Ada Lovelace"]
    assert oral.abstract == "We tilt the prior of a VAE by $\\alpha \\in (0, 1]$.\n\nIt helps."
    assert oral.forum_url == "https://openreview.net/forum?id=aB3dE_f-01"
    assert oral.pdf_url == "https://openreview.net/pdf/3c0ffee0a1b2c3d4e5f6.pdf"
    assert oral.tags == ["ICLR 2024", "Oral"]
    assert oral.keywords == ["variational inference", "disentanglement"]
    assert oral.primary_area == "generative models"
    assert oral.source == "or.json"
    assert poster.tags == ["ICLR 2024", "Poster"]
    assert poster.pdf_url == "https://openreview.net/pdf?id=Gh7_pOsTer"
    assert (submitted.tags, submitted.pdf_url, submitted.keywords) == (
        ["ICLR 2024", "Submitted"],
        "",
        [],
    )
    assert submitted.primary_area == ""
    assert all(validate_record(r) is r for r in records)


def test_one_line_document_with_count_first_is_read():
    text = '{"count": 2, "notes": [' + v2_note("a1") + ", " + v2_note("b2") + "]}\n"
    assert [(r.forum_id, r.line) for r in read(text)] == [("a1", 1), ("b2", 1)]


def test_v2_json_lines_with_blank_lines_and_an_absolute_pdf():
    text = (
        v2_note("a1", pdf="/pdf/aaa.pdf")
        + "\n\n"
        + v2_note("b2", pdf="https://example.org/paper.pdf", venue="ICLR 2024 spotlight")
        + "\n"
    )
    first, second = read(text)
    assert (first.forum_id, first.line, first.pdf_url) == (
        "a1",
        1,
        "https://openreview.net/pdf/aaa.pdf",
    )
    assert (second.forum_id, second.line, second.pdf_url) == (
        "b2",
        3,
        "https://example.org/paper.pdf",
    )
    assert (first.tags, second.tags) == ([], ["ICLR 2024", "Spotlight"])


def test_json_array_of_notes_gives_element_lines():
    text = "[\n" + v2_note("a1") + ",\n" + v2_note("b2") + "\n]\n"
    assert [(r.forum_id, r.line) for r in read(text, "n.json")] == [("a1", 2), ("b2", 3)]


def test_v1_notes_have_plain_values_and_a_comma_keyword_string():
    note = {
        "id": "v1Note",
        "forum": "v1Note",
        "content": {
            "title": "  Older Paper  ",
            "authors": ["Grace Hopper", "Alan Turing"],
            "abstract": "Plain values.",
            "pdf": "/pdf/0123abcd.pdf",
            "venue": "ICLR 2019 Conference Withdrawn Submission",
            "keywords": "graphs, memory ,",
        },
    }
    (record,) = read(json.dumps(note) + "\n")
    assert record.title == "Older Paper"
    assert record.authors == ["Grace Hopper", "Alan Turing"]
    assert record.pdf_url == "https://openreview.net/pdf/0123abcd.pdf"
    assert record.tags == ["ICLR 2019", "Withdrawn"]
    assert record.keywords == ["graphs", "memory"]


@pytest.mark.parametrize(
    ("authors", "kept"),
    [
        (["Anonymous"], []),  # API v1 blind submission
        (["Anonymous Authors"], []),
        (["anonymous  author(s)"], []),
        (["Ann One", "Anonymous"], ["Ann One"]),
        (["Anonymous Coward"], ["Anonymous Coward"]),  # a name, not the placeholder
    ],
)
def test_placeholder_authors_of_blind_submissions_are_dropped(authors, kept):
    note = {"id": "blind1", "content": {"title": "Blind", "authors": authors, "abstract": "A."}}
    (record,) = read(json.dumps(note) + "\n")
    assert validate_record(record).authors == kept


def test_fields_may_mix_v1_and_v2_forms_in_one_note():
    note = {"id": "m1", "content": {"title": {"value": "Mixed"}, "abstract": "Plain."}}
    (record,) = read(json.dumps(note))
    assert (record.title, record.abstract, record.forum_id) == ("Mixed", "Plain.", "m1")
    assert record.forum_url == "https://openreview.net/forum?id=m1"


def test_missing_abstract_pdf_keywords_venue_and_authors_are_empty():
    note = {"id": "bare1", "forum": "bare1", "content": {"title": {"value": "Bare"}}}
    (record,) = read(json.dumps(note))
    assert (record.abstract, record.pdf_url, record.keywords, record.tags, record.authors) == (
        "",
        "",
        [],
        [],
        [],
    )
    # Its forum id identifies it: a note without an abstract is still a paper.
    assert validate_record(record).forum_id == "bare1"
    untitled = {"id": "bare2", "forum": "bare2", "content": {}}
    (record,) = read(json.dumps(untitled))
    with pytest.raises(ImportFailed, match=r"^n.jsonl:1: record has neither an abstract nor a"):
        validate_record(record)


@pytest.mark.parametrize(
    ("venue", "tags"),
    [
        ("ICLR 2024 oral", ["ICLR 2024", "Oral"]),
        ("ICLR 2024 poster", ["ICLR 2024", "Poster"]),
        ("ICLR 2024 spotlight", ["ICLR 2024", "Spotlight"]),
        ("ICLR 2025 Oral", ["ICLR 2025", "Oral"]),
        ("ICLR 2023 notable top 5%", ["ICLR 2023", "Notable top 5%"]),
        ("NeurIPS 2023 invited talk", ["NeurIPS 2023", "Invited talk"]),
        (
            "NeurIPS 2023 Datasets and Benchmarks Poster",
            ["NeurIPS 2023 Datasets and Benchmarks", "Poster"],
        ),
        ("Submitted to ICLR 2024", ["ICLR 2024", "Submitted"]),
        ("ICLR 2024 Conference Withdrawn Submission", ["ICLR 2024", "Withdrawn"]),
        ("ICLR 2024 Conference Desk Rejected Submission", ["ICLR 2024", "Desk rejected"]),
        ("ICLR 2024 Conference Rejected Submission", ["ICLR 2024", "Rejected"]),
        ("ICLR 2024 Rejected", ["ICLR 2024", "Rejected"]),
        ("ICLR 2019 Conference Blind Submission", ["ICLR 2019", "Submitted"]),
        ("NeurIPS 2026 Conference Submission", ["NeurIPS 2026", "Submitted"]),
        ("TMLR", ["TMLR"]),
        ("Submitted to TMLR", ["TMLR", "Submitted"]),
        ("Under review for TMLR", ["TMLR", "Submitted"]),
        ("Rejected by TMLR", ["TMLR", "Rejected"]),
        ("Desk rejected by TMLR", ["TMLR", "Desk rejected"]),
        ("Accepted by TACL", ["TACL", "Accepted"]),
        ("NeurIPS 2023 Workshop MATH-AI", ["NeurIPS 2023 Workshop MATH-AI"]),
        ("  ICLR  2024   poster ", ["ICLR 2024", "Poster"]),
        ("Poster", ["Poster"]),
        ("", []),
    ],
)
def test_venue_strings_become_venue_and_track_tags(venue, tags):
    assert openreview.venue_tags(venue) == tags
    (record,) = read(v2_note(venue=venue))
    assert record.tags == tags


@pytest.mark.parametrize(
    ("venue_id", "tags"),
    [
        ("TMLR/Withdrawn_Submission", ["TMLR", "Withdrawn"]),
        (".TMLR/Withdrawn_Submission", ["TMLR", "Withdrawn"]),
        ("", ["Withdrawn"]),
    ],
)
def test_a_journal_paper_withdrawn_by_its_authors_takes_its_venue_from_the_venue_id(venue_id, tags):
    (record,) = read(v2_note(venue="Withdrawn by Authors", venueid=venue_id))
    assert record.tags == tags


@pytest.mark.parametrize(
    ("venue", "venue_id", "tags"),
    [
        ("TMLR", "TMLR", ["TMLR", "Accepted"]),
        (
            "NeurIPS 2023 Workshop MATH-AI",
            "NeurIPS.cc/2023/Workshop/MATH-AI",
            ["NeurIPS 2023 Workshop MATH-AI", "Accepted"],
        ),
        ("ICLR 2024 poster", "ICLR.cc/2024/Conference", ["ICLR 2024", "Poster"]),
        ("Under review for TMLR", "TMLR/Under_Review", ["TMLR", "Submitted"]),
    ],
)
def test_a_venue_with_a_venue_id_and_no_status_is_an_acceptance(venue, venue_id, tags):
    (record,) = read(v2_note(venue=venue, venueid=venue_id))
    assert record.tags == tags


def test_replies_are_skipped_with_or_without_a_title():
    lines = [
        v2_note("p1"),
        # API v2 review: no title, forum is the paper.
        json.dumps({"id": "r1", "forum": "p1", "replyto": "p1", "content": {"rating": 8}}),
        # API v1 comment: it has a title, and its forum is the paper's.
        json.dumps({"id": "c1", "forum": "p1", "content": {"title": "Re: rebuttal"}}),
        # A reply whose content is not even an object is never looked at.
        json.dumps({"id": "d1", "forum": "p1", "replyto": "r1", "content": "Accept"}),
    ]
    assert [(r.forum_id, r.line) for r in read("\n".join(lines))] == [("p1", 1)]


def test_a_file_of_only_replies_fails():
    text = json.dumps({"id": "r1", "forum": "p1", "replyto": "p1", "content": {"rating": 8}})
    assert failure(text) == (
        "n.jsonl: the file holds only replies to papers (1: reviews, comments, decisions); "
        "replies are not imported"
    )


@pytest.mark.parametrize(
    "text",
    ["", "\n  \n", '{"notes": [], "count": 0}', "[]"],
)
def test_a_file_without_notes_fails(text):
    assert failure(text) == "n.jsonl: no OpenReview notes in the file"


def test_latex_and_unicode_survive_validation():
    text = v2_note("u1", title="$\\mathcal{O}(n)$ Ünïcödé", authors=["Zoë Ünal", "李雷"])
    (record,) = read(text)
    validate_record(record)
    assert (record.title, record.authors) == ("$\\mathcal{O}(n)$ Ünïcödé", ["Zoë Ünal", "李雷"])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": 7}, "content.title must be text, got a number"),
        ({"abstract": ["x"]}, "content.abstract must be text, got a list"),
        ({"authors": "Ann One"}, "content.authors must be a list of names (strings), got text"),
        (
            {"authors": ["Ann One", 3]},
            "content.authors must be a list of names (strings); item 2 is a number",
        ),
        ({"pdf": True}, "content.pdf must be text, got true/false"),
        ({"venue": {"value": {"x": 1}}}, "content.venue must be text, got an object"),
        ({"primary_area": 3.5}, "content.primary_area must be text, got a number"),
        ({"keywords": [1]}, "content.keywords must be a list of strings or a comma string"),
    ],
)
def test_a_field_of_the_wrong_type_fails_naming_the_field(fields, message):
    text = v2_note("ok1") + "\n" + v2_note("bad2", **fields) + "\n"
    assert failure(text) == f"n.jsonl:2: {message}"


@pytest.mark.parametrize(
    ("note", "message"),
    [
        (
            {"id": "a", "content": {"title": {"val": "x"}}},
            'content.title must be a value or {"value": ...}, got an object without "value"',
        ),
        ({"id": "a", "content": ["title"]}, "'content' must be a JSON object {...}, got a list"),
        ({"id": "a"}, "note has no 'content' (the object holding title, authors, abstract, ...)"),
        ({"content": {"title": "x"}}, "note has neither 'forum' nor 'id'"),
        ({"id": 5, "content": {}}, "note field 'id' must be text, got a number"),
        ({"id": "a", "forum": ["a"], "content": {}}, "note field 'forum' must be text, got a list"),
    ],
)
def test_a_malformed_note_fails_at_its_line(note, message):
    text = v2_note("ok1") + "\n" + json.dumps(note) + "\n"
    assert failure(text) == f"n.jsonl:2: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            v2_note("a1") + '\n["x"]\n',
            "n.jsonl:2: each note must be a JSON object {...}, got a list",
        ),
        (
            "[\n" + v2_note("a1") + ',\n "x"\n]',
            "n.jsonl:3: each note must be a JSON object {...}, got text",
        ),
        (
            '{\n  "notes": [\n    3\n  ]\n}',
            "n.jsonl:3: each note must be a JSON object {...}, got a number",
        ),
    ],
)
def test_a_note_that_is_not_an_object_fails_in_every_shape(text, message):
    assert failure(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # JSON lines: the broken line.
        (
            v2_note("a1") + '\n{"id": "b2", "content": \n',
            "n.jsonl:2: invalid JSON: Expecting value",
        ),
        # A pretty-printed document: the line inside the second note where the syntax breaks.
        (
            '{\n  "notes": [\n    {"id": "a1", "content": {"title": "A"}},\n'
            '    {"id": "b2",\n     "content": {"title": "B",}}\n  ]\n}\n',
            "n.jsonl:5: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        (
            '{\n  "notes": [\n    {"id": "a1", "content": {"title": "A"}}\n    {"id": "b2"}\n]}',
            "n.jsonl:4: invalid JSON: expected ',' or ']' after an array element",
        ),
        ('{"notes": {"id": "a1"}}', 'n.jsonl:1: "notes" must be a JSON list [...] of notes'),
        ('{"notes": [], "notes": []}', 'n.jsonl:1: the key "notes" appears twice'),
        (
            '{\n"notes": []\n}\n{"x": 1}\n',
            "n.jsonl:4: invalid JSON: extra data after the closing '}'",
        ),
        ('{\n"notes": []\n', "n.jsonl:3: invalid JSON: expected ',' or '}' after an object member"),
        ("title,abstract\nA,B\n", "n.jsonl:1: expected OpenReview notes"),
        (
            '{"notes": [' + "[" * 40 + "]" * 40 + "]}",
            "n.jsonl:1: JSON nested more than 32 levels deep",
        ),
        (
            '[\n{"id": "a1", "number": ' + "9" * 5000 + "}]",
            "n.jsonl:2: a JSON number has 5000 digits",
        ),
    ],
)
def test_invalid_json_fails_with_the_line(text, message):
    assert failure(text).startswith(message)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SAMPLE.read_text(encoding="utf-8"), True),
        ('{"count": 1, "notes": [' + v2_note() + "]}", True),
        ('{"notes": [], "count": 0}', True),
        (v2_note() + "\n" + v2_note("b2") + "\n", True),
        ('[\n  {"id": "x1", "content": {"title": "Plain v1"}}\n]', True),
        ('{"forum": "x1", "content": {"title": {"value": "T"}}}', True),
        # Our own JSON lines and JSON array shapes.
        ('{"title": "T", "abstract": "A.", "authors": ["Ann One"], "tags": "ICLR 2024"}\n', False),
        ('[{"title": "T", "abstract": "A.", "authors": "Ann One"}]', False),
        # Notes-like, but no id/forum, or a content without a title, or a pretty-printed note.
        ('{"content": {"title": "T"}}', False),
        ('{"id": "r1", "forum": "p1", "content": {"rating": 8}}', False),
        # Saved from /notes?forum=...: a review (it replies to the paper) can come first.
        ('{"id": "r1", "forum": "p1", "replyto": "p1", "content": {}}\n' + v2_note("p1"), True),
        ('{"notes": [{"id": "r1", "forum": "p1", "replyto": "p1", "content": {}}]}', True),
        ('{\n  "id": "x1",\n  "content": {"title": "T"}\n}\n', False),
        ('{"notes": "none"}', False),
        ('{"notes": [1, 2]}', False),
        # Not JSON at all, or broken.
        ("title,abstract,authors\nT,A,B\n", False),
        ("ICLR 2024 Papers\n\nAn abstract.\n", False),
        ('{"notes": [{"id": "a1", "content": {"title": ', False),
        ("", False),
        ("[]", False),
    ],
)
def test_looks_like(text, expected):
    assert openreview.looks_like(text) is expected


def test_looks_like_only_reads_the_start_of_a_long_document():
    # A one-line response far longer than what looks_like examines, broken at its very end.
    text = '{"notes": [' + ", ".join([v2_note(f"n{i}") for i in range(20_000)]) + ", oops"
    assert len(text) > 1_000_000
    assert openreview.looks_like(text) is True


def test_a_file_whose_first_note_is_a_review_imports_without_naming_its_format(tmp_path):
    review = {"id": "r1", "forum": "p1", "replyto": "p1", "content": {"rating": {"value": 8}}}
    path = tmp_path / "forum.jsonl"
    path.write_text(json.dumps(review) + "\n" + v2_note("p1") + "\n", encoding="utf-8")
    records = list(formats.read_records(path))
    assert [(r.forum_id, r.line) for r in records] == [("p1", 1), ("p1", 2)]


def test_a_keyword_string_with_semicolons_splits_on_them():
    note = {"id": "k1", "content": {"title": "K", "abstract": "A.", "keywords": "a, b; c"}}
    (record,) = read(json.dumps(note) + "\n")
    assert record.keywords == ["a, b", "c"]


@pytest.mark.parametrize("shape", ["document", "array"])
def test_many_notes_in_one_document_are_read_in_linear_time(shape):
    # Each note's depth check once counted the brackets to the end of the file, which made a
    # 10 MB download of notes take minutes: 60,000 notes here ran past the alarm that way and
    # take under a second now. The alarm turns a quadratic read into a failure, not a hang.
    note = '{"id": "n%d", "forum": "n%d", "content": {"abstract": {"value": "A %d."}}}'
    notes = ",\n".join(note % (i, i, i) for i in range(60_000))
    text = f'{{"notes": [\n{notes}\n]}}' if shape == "document" else f"[\n{notes}\n]"

    def too_slow(signum, frame):
        raise TimeoutError("reading the notes took more than 20 seconds")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(20)
    try:
        count = sum(1 for _ in openreview.read(text, "notes.json"))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert count == 60_000


@pytest.mark.parametrize("indent", [None, 2], ids=["one line", "pretty-printed"])
def test_a_document_whose_first_note_is_longer_than_the_head_is_read_as_notes(tmp_path, indent):
    # A forum saved with its replies (details.replies) easily runs past the 64 KB head the
    # JSON-lines check once read: such a document was read as JSON lines and failed.
    replies = [
        {
            "id": f"c{n}",
            "forum": "f1",
            "replyto": "f1",
            "invitations": ["NeurIPS.cc/2023/Conference/Submission1/-/Official_Comment"],
            "content": {"comment": {"value": "We thank the reviewer. " * 100}},
        }
        for n in range(40)
    ]
    note = {
        "id": "f1",
        "forum": "f1",
        "content": {
            "title": {"value": "A Discussed Paper"},
            "abstract": {"value": "Much discussed."},
            "venue": {"value": "NeurIPS 2023 poster"},
        },
        "details": {"replies": replies},
    }
    text = json.dumps({"notes": [note], "count": 1}, indent=indent)
    assert len(text) > 1 << 16
    path = tmp_path / "forums.json"
    path.write_text(text, "utf-8")
    records = [r for r in formats.read_records(path) if not isinstance(r, ReviewRecord)]
    assert [(r.forum_id, r.title, r.tags) for r in records] == [
        ("f1", "A Discussed Paper", ["NeurIPS 2023", "Poster"])
    ]


def test_a_note_gives_the_year_it_was_published_not_created():
    # TMLR's venue names no year: a citation takes it from the note's publication date.
    published = json.loads(v2_note("Tmlr_1", venue="TMLR"))
    published |= {"cdate": 1672531200000, "pdate": 1704067200000}  # 2023-01-01, 2024-01-01
    submitted = json.loads(v2_note("Iclr_2")) | {"cdate": 1683849600000}  # 2023-05-12
    text = "\n".join(json.dumps(note) for note in (published, submitted)) + "\n"
    assert [record.year for record in read(text)] == [2024, None]


def test_a_note_date_that_is_no_number_fails_at_its_line():
    note = json.loads(v2_note()) | {"pdate": "2024-01-01"}
    assert failure(json.dumps(note)) == (
        "n.jsonl:1: note field 'pdate' must be milliseconds since 1970, got text"
    )
