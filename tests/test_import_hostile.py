"""Hostile import files: each fails with `file:line: message`, exit status 1, nothing written.

Values exactly at a limit import, one past it fails. Runs on SQLite and on PostgreSQL (set
DATABASE_URL); the database must be unchanged after every failure.
"""

from __future__ import annotations

import io
import json
import os
import signal
import string
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.importing.safe_json import MAX_DEPTH, MAX_INT_DIGITS
from papers.models import Author, Paper, Tag, TagKind
from papers.tags.identity import normalize_tag_name, tag_key
from papers.text import (
    MAX_ABSTRACT,
    MAX_AUTHOR_LIST,
    MAX_AUTHOR_NAME,
    MAX_AUTHORS_PER_PAPER,
    MAX_FORUM_ID,
    MAX_TAG_NAME,
    MAX_TAGS_PER_PAPER,
    MAX_TITLE,
    MAX_URL,
    normalize_author_name,
)

pytestmark = pytest.mark.django_db

GOOD = {"title": "A good paper", "forum_id": "good1", "abstract": "Fine.", "authors": ["Ann"]}
FDFA = "\ufdfa"  # one character, 18 under NFKC
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщъыьэюя"


def jsonl(*records) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write(directory: Path, name: str, content: str) -> Path:
    path = directory / name
    path.write_text(content, encoding="utf-8")
    return path


def counts() -> tuple[int, int, int]:
    return Paper.objects.count(), Author.objects.count(), Tag.objects.count()


def run(*paths) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, paths), stdout=out, stderr=io.StringIO())
    return out.getvalue()


def refused(*paths, extra=()) -> str:
    """The command's error; it must fail like `manage.py import_papers` exiting with 1."""
    with pytest.raises(CommandError) as failure:
        call_command(
            "import_papers", *map(str, paths), *extra, stdout=io.StringIO(), stderr=io.StringIO()
        )
    assert failure.value.returncode == 1
    message = str(failure.value)
    assert message.endswith("Nothing was imported.")
    return message


@pytest.fixture
def before(tmp_path):
    """A paper, authors and tags already imported; every failure must leave them as they are."""
    seed = {"title": "Seed", "forum_id": "seed1", "abstract": "Seed abstract.", "tags": "ICLR 2024"}
    run(write(tmp_path, "seed.jsonl", jsonl({**seed, "authors": ["Seed Author", "Ann"]})))
    return counts()


@pytest.fixture
def no_hang():
    """Fail instead of blocking forever if something opens a FIFO for reading."""

    def timeout(signum, frame):
        raise TimeoutError("the import blocked")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def distinct_words(count: int, alphabet: str = string.ascii_lowercase) -> list[str]:
    """`count` different words: numbers written in `alphabet`, at least four letters long."""
    words = []
    for number in range(count):
        letters = []
        for _ in range(4):
            number, digit = divmod(number, len(alphabet))
            letters.append(alphabet[digit])
        while number:
            number, digit = divmod(number, len(alphabet))
            letters.append(alphabet[digit])
        words.append("".join(letters))
    return words


def name(words, length: int) -> str:
    """A name of exactly `length` characters made of words taken from `words`."""
    text = ""
    while len(text) < length:
        text += next(words) + " "
    return text[: length - 1] + "z"


def name_list(total: int, count: int, alphabet: str = string.ascii_lowercase) -> list[str]:
    """`count` names of distinct words whose list, joined by ", ", is `total` characters long."""
    words = iter(distinct_words(total, alphabet))
    each = (total - 2 * (count - 1)) // count
    names = [name(words, each) for _ in range(count - 1)]
    names.append(name(words, total - 2 * (count - 1) - each * (count - 1)))
    assert len(", ".join(names)) == total
    return names


# -- limits: at the limit imports, one past fails ---------------------------------------------

# field -> (value at the limit, value one past it, message for the one past)
LIMITS = {
    "title": ("t" * MAX_TITLE, "t" * (MAX_TITLE + 1), "title is 501 characters long; at most 500"),
    "abstract": (
        "a" * MAX_ABSTRACT,
        "a" * (MAX_ABSTRACT + 1),
        "abstract is 10001 characters long; at most 10000 are allowed",
    ),
    "pdf url": (
        "https://x.org/" + "p" * (MAX_URL - 14),
        "https://x.org/" + "p" * (MAX_URL - 13),
        "pdf url is 501 characters long; at most 500 are allowed",
    ),
    "forum id": (
        "f" * MAX_FORUM_ID,
        "f" * (MAX_FORUM_ID + 1),
        "forum id is 101 characters long; at most 100 are allowed",
    ),
    "author name": (
        ["n" * MAX_AUTHOR_NAME],
        ["n" * (MAX_AUTHOR_NAME + 1)],
        "author name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'... is 301 characters long; "
        "at most 300 are allowed",
    ),
    "author name under NFKC": (
        [FDFA * 16 + "a" * 12],
        [FDFA * 16 + "a" * 13],
        f"author name {FDFA * 16 + 'a' * 13!r} is 301 characters long once normalised "
        "(NFKC, casefold); at most 300 are allowed",
    ),
    "author name under casefolding": (
        ["ß" * 150],
        ["ß" * 151],
        "author name 'ßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßßß'... is 302 characters long once "
        "normalised (NFKC, casefold); at most 300 are allowed",
    ),
    "number of authors": (
        [f"Author {i}" for i in range(MAX_AUTHORS_PER_PAPER)],
        [f"Author {i}" for i in range(MAX_AUTHORS_PER_PAPER + 1)],
        "2001 authors; at most 2000 are allowed",
    ),
    "author list": (
        name_list(MAX_AUTHOR_LIST, 400),
        name_list(MAX_AUTHOR_LIST + 1, 400),
        "the author list is 100001 characters long (names joined by ', '); at most 100000",
    ),
    "tag": (
        ["g" * MAX_TAG_NAME],
        ["g" * (MAX_TAG_NAME + 1)],
        "tag 'gggggggggggggggggggggggggggggggggggggggg'... is 101 characters long; at most 100",
    ),
    "tag under NFKC": (
        [FDFA * 5 + "a" * 10],
        [FDFA * 5 + "a" * 11],
        f"tag {FDFA * 5 + 'a' * 11!r} is 101 characters long once normalised (NFKC); "
        "at most 100 are allowed",
    ),
    "tag key under casefolding": (
        ["ß" * 50],
        ["ß" * 51],
        f"tag {'ß' * 40!r}... is 102 characters long as a key (NFKC, casefold); at most 100",
    ),
    "number of tags": (
        [f"Track {i}" for i in range(MAX_TAGS_PER_PAPER)],
        [f"Track {i}" for i in range(MAX_TAGS_PER_PAPER + 1)],
        "101 tags; at most 100 are allowed",
    ),
}
FIELD_NAMES = {
    "title": "title",
    "abstract": "abstract",
    "pdf url": "pdf",
    "forum id": "forum_id",
}


def limit_record(case: str, value) -> dict:
    name = FIELD_NAMES.get(case, "tags" if "tag" in case else "authors")
    return {"abstract": "Limit test.", "forum_id": "limit1", name: value}


def test_limit_values_are_built_as_their_names_say():
    assert len(normalize_author_name(LIMITS["author name under NFKC"][0][0])) == MAX_AUTHOR_NAME
    assert len(normalize_author_name(LIMITS["author name under casefolding"][0][0])) == 300
    assert len(normalize_tag_name(LIMITS["tag under NFKC"][0][0])) == MAX_TAG_NAME
    assert len(tag_key(LIMITS["tag key under casefolding"][0][0])) == MAX_TAG_NAME


@pytest.mark.parametrize("case", LIMITS, ids=list(LIMITS))
def test_a_value_exactly_at_the_limit_imports(case, before, tmp_path):
    at_limit = LIMITS[case][0]
    output = run(write(tmp_path, "at.jsonl", jsonl(GOOD, limit_record(case, at_limit))))
    assert "2 created" in output
    assert Paper.objects.count() == before[0] + 2


# Identities and links are not cut (a cut one would name another paper or document).
REFUSED_PAST_LIMIT = ("pdf url", "forum id")
# What the report says of a value one past its limit, which is cut (issue 27).
CUT_NOTES = {
    "title": "title 'tttttttttttttttttttttttttttttttttttttttt'... is 501 characters long: cut",
    "abstract": f"abstract {'a' * 40!r}... is 10001 characters long: cut",
    "author name": "author name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'... is 301 characters",
    "author name under NFKC": f"author name {FDFA * 16 + 'a' * 13!r} is 301 characters long",
    "author name under casefolding": f"author name {'ß' * 40!r}... is 302 characters long",
    "number of authors": "2001 authors: kept the first 2000",
    "author list": "the author list is over 100000 characters: kept the first 399",
    "tag": "tag 'gggggggggggggggggggggggggggggggggggggggg'... is 101 characters long: cut",
    "tag under NFKC": f"tag {FDFA * 5 + 'a' * 11!r} is 101 characters long: cut",
    "tag key under casefolding": f"tag {'ß' * 40!r}... is 102 characters long: cut",
    "number of tags": "101 tags: kept the first 100",
}


@pytest.mark.parametrize("case", REFUSED_PAST_LIMIT)
def test_an_identity_or_link_one_past_the_limit_fails_with_its_line(case, before, tmp_path):
    _, one_past, message = LIMITS[case]
    path = write(tmp_path, "past.jsonl", jsonl(GOOD) + "\n" + jsonl(limit_record(case, one_past)))
    error = refused(path)
    assert error.startswith(f"{path}:3: {message}"), error
    assert counts() == before


@pytest.mark.parametrize("case", CUT_NOTES, ids=list(CUT_NOTES))
def test_a_value_one_past_the_limit_is_cut_and_reported_with_its_line(case, before, tmp_path):
    _, one_past, _ = LIMITS[case]
    path = write(tmp_path, "past.jsonl", jsonl(GOOD) + "\n" + jsonl(limit_record(case, one_past)))
    output = run(path)
    assert "2 created" in output
    assert f"{path}:3: {CUT_NOTES[case]}" in output, output
    paper = Paper.objects.get(forum_id="limit1")
    assert len(paper.title) <= MAX_TITLE and len(paper.abstract) <= MAX_ABSTRACT


def test_a_one_megabyte_abstract_of_distinct_words_is_cut_before_the_database(before, tmp_path):
    # PostgreSQL used to fail mid-import: "string is too long for tsvector".
    abstract = name(iter(distinct_words(250_000)), 1_000_000)
    path = write(tmp_path, "big.jsonl", jsonl(GOOD, {"abstract": abstract, "forum_id": "big1"}))
    output = run(path)
    assert f"{path}:2: abstract 'aaaa baaa caaa" in output
    assert "is 1000000 characters long: cut at a word boundary to" in output
    stored = Paper.objects.get(forum_id="big1").abstract
    assert len(stored) <= MAX_ABSTRACT and stored.endswith("…")
    assert abstract.startswith(stored.removesuffix("…") + " ")  # cut between two words


def test_the_longest_author_list_of_distinct_cyrillic_words_keeps_what_fits(before, tmp_path):
    # 2,000 names of 300 characters overflow PostgreSQL's 1 MB search vector in Cyrillic.
    words = iter(distinct_words(200_000, CYRILLIC))
    names = [name(words, MAX_AUTHOR_NAME) for _ in range(MAX_AUTHORS_PER_PAPER)]
    record = {"abstract": "Many authors.", "authors": names}
    path = write(tmp_path, "authors.jsonl", jsonl(GOOD, record))
    output = run(path)
    assert f"{path}:2: the author list is over 100000 characters: kept the first 331" in output
    assert Paper.objects.get(abstract="Many authors.").authors.count() == 331


def test_an_author_list_at_the_limit_in_distinct_cyrillic_words_imports(before, tmp_path):
    names = name_list(MAX_AUTHOR_LIST, 400, CYRILLIC)
    run(write(tmp_path, "authors.jsonl", jsonl({"abstract": "Many.", "authors": names})))
    assert Paper.objects.get(abstract="Many.").author_names == ", ".join(names)


def test_an_imported_tag_loses_its_bidi_control_with_a_note(before, tmp_path):
    # A member's tag with one is refused (tests/test_bidi_member_text.py); imported data is cleaned.
    path = write(tmp_path, "bidi.jsonl", jsonl(GOOD, {"abstract": "A.", "tags": ["\u202egat"]}))
    output = run(path)
    assert f"{path}:2: tag 'gat': removed invisible character(s) U+202E" in output
    assert Tag.objects.filter(name="gat").exists()


# -- JSON: deep nesting and huge integers -------------------------------------------------------


def nested(depth: int) -> str:
    """An object (depth 1) holding arrays down to `depth` levels in total."""
    return '{"abstract": "Deep.", "extra": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def test_json_line_nested_at_the_depth_limit_imports(before, tmp_path):
    run(write(tmp_path, "deep.jsonl", nested(MAX_DEPTH) + "\n"))
    assert Paper.objects.filter(abstract="Deep.").exists()


def test_json_line_nested_one_past_the_depth_limit_fails_with_its_line(before, tmp_path):
    path = write(tmp_path, "deep.jsonl", jsonl(GOOD) + nested(MAX_DEPTH + 1) + "\n")
    error = refused(path)
    assert error.startswith(f"{path}:2: JSON nested more than 32 levels deep (column 63)"), error
    assert counts() == before


def test_json_line_nested_a_thousand_deep_fails_instead_of_recursing(before, tmp_path):
    path = write(tmp_path, "deep.jsonl", jsonl(GOOD) + "\n" + "[" * 100_000 + "]" * 100_000)
    error = refused(path)
    assert error.startswith(f"{path}:3: JSON nested more than 32 levels deep (column 33)"), error
    assert counts() == before


def test_json_array_element_nested_at_the_depth_limit_imports(before, tmp_path):
    # The array itself is the first level.
    run(write(tmp_path, "deep.json", "[\n" + nested(MAX_DEPTH - 1) + "\n]\n"))
    assert Paper.objects.filter(abstract="Deep.").exists()


def test_json_array_element_nested_too_deep_fails_with_the_line_it_is_on(before, tmp_path):
    text = "[\n" + json.dumps(GOOD) + ",\n" + nested(MAX_DEPTH) + "\n]\n"
    path = write(tmp_path, "deep.json", text)
    error = refused(path)
    assert error.startswith(f"{path}:3: JSON nested more than 32 levels deep"), error
    assert counts() == before


def test_json_array_nested_a_thousand_deep_fails_instead_of_recursing(before, tmp_path):
    path = write(tmp_path, "deep.json", "[\n\n" + "[" * 100_000 + "]" * 100_000 + "\n]")
    error = refused(path)
    assert error.startswith(f"{path}:3: JSON nested more than 32 levels deep"), error
    assert counts() == before


def number_record(digits: int) -> str:
    return '{"abstract": "Number.", "extra": ' + "9" * digits + "}"


def test_json_integer_with_the_most_digits_allowed_imports(before, tmp_path):
    run(write(tmp_path, "n.jsonl", number_record(MAX_INT_DIGITS) + "\n"))
    assert Paper.objects.filter(abstract="Number.").exists()


@pytest.mark.parametrize("digits", [MAX_INT_DIGITS + 1, 1_000_000], ids=["one past", "a million"])
def test_json_line_with_a_longer_integer_fails_with_its_line(digits, before, tmp_path):
    path = write(tmp_path, "n.jsonl", jsonl(GOOD) + number_record(digits) + "\n")
    error = refused(path)
    message = f"{path}:2: a JSON number has {digits} digits; at most 4300 are allowed"
    assert error.startswith(message), error
    assert counts() == before


def test_json_array_element_with_a_longer_integer_fails_with_its_line(before, tmp_path):
    text = "[" + json.dumps(GOOD) + ",\n\n  " + number_record(MAX_INT_DIGITS + 1) + "]"
    path = write(tmp_path, "n.json", text)
    error = refused(path)
    assert error.startswith(f"{path}:3: a JSON number has 4301 digits; at most 4300"), error
    assert counts() == before


def test_csv_cell_holding_deeply_nested_json_fails_with_its_line(before, tmp_path):
    text = 'title,authors,abstract\nGood,Ann,Fine.\nBad,"' + "[" * 60_000 + '",Abstract.\n'
    path = write(tmp_path, "x.csv", text)
    error = refused(path)
    assert error.startswith(f"{path}:3: authors: JSON nested more than 32 levels deep"), error
    assert counts() == before


def test_csv_cell_holding_a_huge_json_integer_fails_with_its_line(before, tmp_path):
    text = 'title,tags,abstract\nGood,ICLR 2024,Fine.\nBad,"[' + "1" * 5000 + ']",Abstract.\n'
    path = write(tmp_path, "x.csv", text)
    error = refused(path)
    assert error.startswith(f"{path}:3: tags: a JSON number has 5000 digits"), error
    assert counts() == before


# -- paths: only regular files are read --------------------------------------------------------


def test_a_named_fifo_is_refused_without_opening_it(before, tmp_path, no_hang):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    error = refused(fifo)
    assert error.startswith(f"{fifo}: not a regular file (a device, FIFO or socket)"), error
    assert counts() == before


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_named_device_is_refused_before_any_read(device, before, no_hang):
    error = refused(device)
    assert error.startswith(f"{device}: not a regular file (a device, FIFO or socket)"), error
    assert counts() == before


def test_a_symlink_to_a_device_is_refused(before, tmp_path, no_hang):
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    assert refused(link).startswith(f"{link}: not a regular file")
    assert counts() == before


def test_a_directory_import_skips_fifos_and_device_links(before, tmp_path, no_hang):
    write(tmp_path, "a_good.jsonl", jsonl(GOOD))
    os.mkfifo(tmp_path / "b_pipe.jsonl")
    (tmp_path / "c_zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "seed.jsonl").unlink()
    output = run(tmp_path)
    assert f"{tmp_path}/a_good.jsonl: 1 created" in output
    assert "pipe" not in output and "zero" not in output
    assert Paper.objects.count() == before[0] + 1


def test_dev_zero_makes_the_command_exit_with_status_1(before, capsys, monkeypatch, no_hang):
    from django.db import connections

    from papers.management.commands.import_papers import Command

    monkeypatch.setattr(connections, "close_all", lambda: None)  # keep the test database open
    with pytest.raises(SystemExit) as exit_info:
        Command().run_from_argv(["manage.py", "import_papers", "/dev/zero"])
    assert exit_info.value.code == 1
    assert "/dev/zero: not a regular file" in capsys.readouterr().err
    assert counts() == before


# -- CSV ---------------------------------------------------------------------------------------


def test_csv_cell_past_the_field_size_limit_fails_with_its_line(before, tmp_path):
    text = "title,abstract\nGood,Fine.\n\nBig," + "a" * 200_000 + "\n"
    path = write(tmp_path, "x.csv", text)
    error = refused(path)
    assert error.startswith(f"{path}:4: malformed CSV: field larger than field limit"), error
    assert counts() == before


def test_csv_header_of_a_million_columns_gives_a_short_message(before, tmp_path):
    path = write(tmp_path, "x.csv", ",".join(f"c{i}" for i in range(1_000_000)) + "\nx\n")
    error = refused(path, extra=["--format", "csv"])
    assert error.startswith(f"{path}:1: no 'abstract' column in the header (columns: 'c0', 'c1'")
    assert "(1000000 in all)" in error and len(error) < 500
    assert counts() == before


def test_csv_header_of_a_million_columns_with_an_abstract_is_checked_quickly(
    before, tmp_path, no_hang
):
    header = "abstract," + ",".join(f"c{i}" for i in range(1_000_000))
    path = write(tmp_path, "x.csv", header + "\nx\n")
    error = refused(path, extra=["--format", "csv"])
    assert error.startswith(f"{path}:2: row has 1 columns, the header has 1000001"), error
    assert counts() == before


# -- table dumps and abstract lists -------------------------------------------------------------

TABLE = "| title | abstract |\n|---|---|\n| Good | Fine. |\n"


def test_table_cell_of_a_million_pipes_is_cut_as_a_long_abstract(before, tmp_path):
    path = write(tmp_path, "dump.txt", TABLE + "| Bad | " + "| " * 1_000_000 + "|\n")
    output = run(path)
    assert f"{path}:4: abstract '| | |" in output
    assert "is 1999999 characters long: cut at a word boundary" in output


def test_table_row_of_one_fifty_megabyte_line_is_refused_over_the_record_limit(before, tmp_path):
    path = write(tmp_path, "dump.txt", TABLE + "| Bad | " + "w " * 25_000_000 + "|\n")
    error = refused(path)
    assert error.startswith(
        f"{path}:4: this line is 50,000,009 bytes; a record may be at most 16 MB"
    ), error
    assert counts() == before


def test_table_header_naming_a_column_a_hundred_thousand_times_fails_quickly(before, tmp_path):
    header = "| abstract |" + " x |" * 100_000 + "\n|" + "---|" * 100_001 + "\n"
    path = write(tmp_path, "dump.txt", header + "| a |" + " b |" * 100_000 + "\n")
    error = refused(path)
    assert error.startswith(f"{path}:1: column named twice in the header: 'x'"), error
    assert counts() == before


def test_abstract_list_of_one_fifty_megabyte_line_is_refused_with_its_line(before, tmp_path):
    text = "ICLR 2024 Papers\n\nFine.\n\n" + "word " * 10_000_000 + "\n"
    path = write(tmp_path, "list.txt", text)
    error = refused(path)
    assert error.startswith(f"{path}:5: this line is 50,000,000 bytes; a record may be at most"), (
        error
    )
    assert counts() == before


def test_abstract_list_with_a_million_blank_lines_imports_with_the_right_line(before, tmp_path):
    text = "ICLR 2024 Papers\n" + "\n" * 1_000_000 + "Far down.\n"
    path = write(tmp_path, "list.txt", text)
    run(path)
    assert Paper.objects.filter(abstract="Far down.").exists()
    text += "\n" + "x" * (MAX_ABSTRACT + 1) + "\n"
    path.write_text(text, encoding="utf-8")
    assert f"{path}:1000004: abstract 'xxxx" in run(path)


# -- many distinct venues ------------------------------------------------------------------------

VENUES = 10_000


def venue_corpus(path: Path, *, prefix: str = "Venue", count: int = VENUES) -> Path:
    records = (
        {
            "forum_id": f"v{i}",
            "abstract": f"Abstract {i}.",
            "authors": [f"Author {i}"],
            "tags": [f"{prefix} {i} 2024", "Poster"],
        }
        for i in range(count)
    )
    return write(path.parent, path.name, jsonl(*records))


def test_ten_thousand_records_with_ten_thousand_venues_import(tmp_path):
    # SQLite used to refuse the tag lookup: "Expression tree is too large (maximum depth 1000)".
    run(venue_corpus(tmp_path / "venues.jsonl"))
    assert Paper.objects.count() == VENUES
    assert Tag.objects.filter(kind=TagKind.VENUE).count() == VENUES
    assert Tag.objects.filter(kind=TagKind.TRACK).count() == 1
    assert Author.objects.count() == VENUES


def test_thousands_of_new_venues_on_existing_papers_are_added(tmp_path):
    # Two full batches of papers whose current state is read back, 1,000 new venues in each.
    run(venue_corpus(tmp_path / "first.jsonl", count=2_000))
    output = run(venue_corpus(tmp_path / "second.jsonl", prefix="Other", count=2_000))
    assert "0 created, 2000 updated" in output
    assert Tag.objects.filter(kind=TagKind.VENUE).count() == 4_000
    paper = Paper.objects.get(forum_id="v1999")
    assert sorted(paper.tags.values_list("name", flat=True)) == [
        "Other 1999 2024",
        "Poster",
        "Venue 1999 2024",
    ]


def test_tags_sharing_a_slug_get_free_numbered_slugs_past_stored_ones(tmp_path):
    # "ICLR 2024 2" holds the slug a second "ICLR 2024" spelling would have taken first.
    run(write(tmp_path, "a.jsonl", jsonl({"abstract": "A.", "tags": ["ICLR 2024", "ICLR 2024 2"]})))
    run(write(tmp_path, "b.jsonl", jsonl({"abstract": "B.", "tags": ["ICLR 2024!", "ICLR-2024?"]})))
    slugs = Tag.objects.filter(kind=TagKind.VENUE).order_by("slug").values_list("slug", flat=True)
    assert list(slugs) == ["iclr-2024", "iclr-2024-2", "iclr-2024-3", "iclr-2024-4"]


def test_thousands_of_tags_on_one_slug_get_distinct_slugs(tmp_path):
    spellings = [f"V {'!' * (i % 48)}{'?' * (i // 48)}" for i in range(2_400)]
    records = [{"abstract": f"A {i}.", "tags": [name]} for i, name in enumerate(spellings)]
    run(write(tmp_path, "v.jsonl", jsonl(*records)))
    slugs = set(Tag.objects.filter(kind=TagKind.VENUE).values_list("slug", flat=True))
    assert slugs == {"v"} | {f"v-{n}" for n in range(2, 2_401)}


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u3164", "\u0301"])
def test_an_author_name_with_nothing_visible_is_left_out_with_a_note(tmp_path, before, name):
    record = {**GOOD, "forum_id": "x2", "authors": ["Ann", name]}
    path = write(tmp_path, "x.jsonl", jsonl(GOOD, record))
    output = run(path)
    assert f"{path}:2:" in output and "show nothing: left out" in output
    assert Paper.objects.get(forum_id="x2").author_names == "Ann"


def test_an_author_name_loses_its_bidi_control_with_a_note(tmp_path, before):
    # An unclosed right-to-left override would reverse the rest of the author line on every page.
    record = {**GOOD, "forum_id": "x2", "authors": ["Ann", "\u202eoreZ deZ"]}
    path = write(tmp_path, "x.jsonl", jsonl(GOOD, record))
    output = run(path)
    assert f"{path}:2: author name 'oreZ deZ': removed invisible character(s) U+202E" in output
    assert Paper.objects.get(forum_id="x2").author_names == "Ann, oreZ deZ"


@pytest.mark.parametrize("field", ["title", "abstract"])
def test_a_title_or_abstract_loses_what_would_reorder_what_follows(tmp_path, before, field):
    record = {**GOOD, "forum_id": "x2", field: "Safe \u202eesrever txet"}
    path = write(tmp_path, "x.jsonl", jsonl(GOOD, record))
    output = run(path)
    assert f"{path}:2: {field}" in output
    assert getattr(Paper.objects.get(forum_id="x2"), field) == "Safe esrever txet"


def test_right_to_left_text_with_its_marks_is_a_fine_title(tmp_path):
    # The marks (RLM, LRM) belong to right-to-left writing; only reordering controls are refused.
    title = "\u05dc\u05de\u05d9\u05d3\u05d4 \u200fDeep learning\u200e"
    run(write(tmp_path, "x.jsonl", jsonl({**GOOD, "title": title})))
    assert Paper.objects.get().title == title


@pytest.mark.parametrize(
    "spelling", ["\u200bZed Zero", "Zed\u200bZero", "Zed Ze\u00adro", "Zed\u2060 Zero"]
)
def test_invisible_characters_do_not_make_another_author(tmp_path, spelling):
    assert normalize_author_name(spelling) == normalize_author_name("Zed Zero")
    first = {**GOOD, "authors": ["Zed Zero"]}
    second = {**GOOD, "forum_id": "x2", "abstract": "Other.", "authors": [spelling]}
    run(write(tmp_path, "x.jsonl", jsonl(first, second)))
    assert Author.objects.filter(normalized_name="zed zero").count() == 1
    assert Author.objects.count() == 1


def test_csv_quote_left_open_fails_at_the_line_it_opens(before, tmp_path):
    path = write(tmp_path, "x.csv", 'title,abstract\nGood,Fine.\n"Unclosed,abs\nNext,abs2\n')
    error = refused(path)
    assert error.startswith(f"{path}:3: malformed CSV: unexpected end of data"), error
    assert counts() == before


def test_csv_header_naming_a_column_twice_fails(before, tmp_path):
    path = write(tmp_path, "x.csv", "title,abstract,Title\nOne,Fine.,Two\n")
    error = refused(path)
    assert error.startswith(f"{path}:1: column 'title' appears more than once in the header")
    assert counts() == before
