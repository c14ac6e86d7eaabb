"""A malformed input fails the whole import with file:line: message and writes nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.importing import formats
from papers.models import Author, Authorship, Paper, PaperTag, Tag

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TABLE_HEADER = (
    "title\nstring\n| url\nstring\n| authors\nstring\n| abstract\nstring\n|\n|---|---|---|---|\n"
)
GOOD_ROW = "Fine | https://openreview.net/forum?id=fine1 | Ann | An abstract. |\n"
GOOD_JSON = json.dumps({"title": "Good", "forum_id": "good1", "abstract": "Fine."})


def snapshot() -> dict[str, list[dict]]:
    models = (Paper, Author, Authorship, Tag, PaperTag)
    return {m.__name__: list(m.objects.order_by("pk").values()) for m in models}


@pytest.fixture
def loaded(db):
    """An earlier import already in the database; every failure must leave it exactly so."""
    call_command("import_papers", str(FIXTURES), stdout=io.StringIO())
    state = snapshot()
    assert len(state["Paper"]) == 119
    return state


def fails(*paths, extra=()) -> str:
    with pytest.raises(CommandError) as failure:
        call_command("import_papers", *map(str, paths), *extra, stdout=io.StringIO())
    return str(failure.value)


CASES = {
    "table row with wrong column count": (
        "dump.txt",
        TABLE_HEADER + GOOD_ROW + "Bad | https://openreview.net/forum?id=b2 | An abstract. |\n",
        "dump.txt:12: row has 3 columns, expected 4",
    ),
    "table row without abstract or forum id": (
        "dump.txt",
        TABLE_HEADER + GOOD_ROW + "Empty |  | Ann |  |\n",
        "dump.txt:12: record has no abstract, and no forum id, arXiv id or DOI to know it by",
    ),
    "jsonl record without abstract or any id": (
        "x.jsonl",
        GOOD_JSON + '\n{"title": "No abstract", "url": "https://example.org/paper"}\n',
        "x.jsonl:2: record has no abstract, and no forum id, arXiv id or DOI to know it by",
    ),
    "jsonl record without abstract or title": (
        "x.jsonl",
        GOOD_JSON + '\n{"forum_id": "na1", "authors": ["Ann"]}\n',
        "x.jsonl:2: record has neither an abstract nor a title",
    ),
    "jsonl record with a malformed DOI": (
        "x.jsonl",
        GOOD_JSON + '\n{"title": "T", "doi": "doi.org/10.1/x"}\n',
        "x.jsonl:2: doi 'doi.org/10.1/x' is not a DOI",
    ),
    "jsonl record with a malformed arXiv id": (
        "x.jsonl",
        GOOD_JSON + '\n{"title": "T", "arxiv_id": "arXiv:12345"}\n',
        "x.jsonl:2: arxiv id '12345' is not an arXiv id",
    ),
    "invalid JSON": ("x.jsonl", GOOD_JSON + "\n\n{'single': quotes}\n", "x.jsonl:3: invalid JSON"),
    "JSON line that is not an object": (
        "x.jsonl",
        GOOD_JSON + "\n42\n",
        "x.jsonl:2: each line must be a JSON object",
    ),
    "undetectable format": ("notes.txt", "Just a sentence.", "notes.txt:1: cannot tell the format"),
    "URL too long": (
        "x.csv",
        "title,url,abstract\nT,https://openreview.net/forum?id=" + "a" * 480 + ",A.\n",
        "x.csv:2: forum url is 512 characters long; at most 500",
    ),
    "javascript: URL": (
        "x.jsonl",
        json.dumps({"title": "T", "pdf": "javascript:alert(1)", "abstract": "A."}),
        "x.jsonl:1: pdf url 'javascript:alert(1)' is not an http(s) URL",
    ),
    "forum id twice in one file": (
        "x.csv",
        "title,forum_id,abstract\nOne,dup1,First.\nTwo,dup1,Second.\n",
        "x.csv:3: forum id dup1 is also at line 2 of this file, with other content",
    ),
    "NUL character": ("x.jsonl", GOOD_JSON + "\n" + GOOD_JSON[:-1] + '\x00"}\n', "x.jsonl:2: NUL"),
    "NUL escaped in JSON": (
        "x.jsonl",
        GOOD_JSON + "\n" + json.dumps({"title": "a\x00b", "abstract": "A."}) + "\n",
        "x.jsonl:2: title contains a NUL character",
    ),
    "unpaired surrogate escaped in JSON": (
        "x.jsonl",
        '{"title": "T", "abstract": "bad \\ud800 escape"}\n',
        "x.jsonl:1: abstract contains an unpaired surrogate",
    ),
    "CSV without abstract column": ("x.csv", "title,forum_id\nA,b\n", "x.csv:1: cannot tell"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_malformed_file_fails_with_its_line_and_leaves_the_database_exactly_as_it_was(
    case, loaded, tmp_path
):
    name, content, message = CASES[case]
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    error = fails(path)
    assert error.startswith(f"{tmp_path}/{message}"), error
    assert error.endswith("Nothing was imported.")
    assert snapshot() == loaded


def test_non_utf8_bytes_report_the_line_of_the_first_bad_byte(loaded, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(GOOD_JSON.encode() + b"\n" + GOOD_JSON.encode() + b'\n{"title": "Caf\xe9"}\n')
    assert fails(path).startswith(f"{path}:3: not UTF-8: byte 0xe9")
    assert snapshot() == loaded


def test_missing_path_fails(loaded, tmp_path):
    assert fails(tmp_path / "nowhere.jsonl").startswith(
        f"{tmp_path}/nowhere.jsonl: no such file or directory"
    )
    assert snapshot() == loaded


def test_unreadable_file_fails(loaded, tmp_path, monkeypatch):
    path = tmp_path / "locked.jsonl"
    path.write_text(GOOD_JSON)
    real = formats.os.open

    def open_file(name, flags, *args, **kwargs):
        if Path(name) == path:
            raise PermissionError(13, "Permission denied")
        return real(name, flags, *args, **kwargs)

    # chmod 000 does not stop root, who may be running the tests: fake the refusal.
    monkeypatch.setattr(formats.os, "open", open_file)
    assert fails(path).startswith(f"{path}: cannot read file: Permission denied")
    assert snapshot() == loaded


def test_a_bad_file_stops_the_good_files_given_with_it(loaded, tmp_path):
    good = tmp_path / "a_good.jsonl"
    good.write_text(GOOD_JSON + "\n")
    bad = tmp_path / "b_bad.jsonl"
    bad.write_text("{nope\n")
    error = fails(good, bad)
    assert error.startswith(f"{bad}:1: invalid JSON")
    assert snapshot() == loaded
    assert not Paper.objects.filter(forum_id="good1").exists()


def test_every_bad_file_is_listed(db, tmp_path):
    (tmp_path / "a.jsonl").write_text("[1]\n")
    (tmp_path / "b.jsonl").write_text('{"abstract": "ok"}\n{bad\n')
    error = fails(tmp_path)
    assert f"{tmp_path}/a.jsonl:1: each array element must be a JSON object" in error
    assert f"{tmp_path}/b.jsonl:2: invalid JSON" in error


def test_a_conflict_in_one_file_fails_the_import_of_every_file(loaded, tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(GOOD_JSON + "\n")
    other = json.dumps({"title": "Other", "forum_id": "good1", "abstract": "Fine."})
    two.write_text("\n" + GOOD_JSON + "\n" + other + "\n")
    assert fails(one, two).startswith(f"{two}:3: forum id good1 is also at line 2 of this file")
    assert snapshot() == loaded


def test_the_command_exits_non_zero_with_the_message_on_stderr(db, tmp_path, capsys, monkeypatch):
    from django.db import connections

    from papers.management.commands.import_papers import Command

    # run_from_argv closes connections when done; the test database must stay open.
    monkeypatch.setattr(connections, "close_all", lambda: None)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    with pytest.raises(SystemExit) as exit_info:
        Command().run_from_argv(["manage.py", "import_papers", str(bad)])
    assert exit_info.value.code == 1
    assert f"{bad}:1: invalid JSON" in capsys.readouterr().err
