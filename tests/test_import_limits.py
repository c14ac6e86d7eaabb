"""A record over IMPORT_MAX_RECORD_BYTES is refused with its line before it is read whole, in
every format; a file parsed whole is bounded by IMPORT_MAX_FILE_BYTES."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.importing import formats
from papers.importing.pipeline import ImportErrors, import_paths
from papers.models import Paper

pytestmark = pytest.mark.django_db

LIMIT = 4_000
MB = 1 << 20


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.IMPORT_MAX_RECORD_BYTES = LIMIT


# Each builder makes a file around one record whose abstract is `pad`: (file text, the record's
# size as counted, the record's line). A record's size is its bytes from its first line to its
# last, line breaks between them included; an Atom entry's runs up to its end tag.
Built = tuple[str, int, int]


def jsonl_file(pad: str) -> Built:
    record = json.dumps({"forum_id": "big1", "title": "Big", "abstract": pad})
    first = json.dumps({"forum_id": "small1", "title": "Small", "abstract": "Small."})
    return f"{first}\n{record}\n", len(record), 2


def json_array_file(pad: str) -> Built:
    text, size, _ = jsonl_file(pad)
    first, record = text.split("\n")[:2]
    return f"[\n{first},\n{record}\n]\n", size, 3


def csv_file(pad: str) -> Built:
    row = f'Big,"First line of the abstract.\n{pad}"'  # a quoted cell spanning two lines
    return f"title,abstract\nSmall,Small.\n{row}\nLast,Last.\n", len(row), 3


def table_file(pad: str) -> Built:
    row = f"| Big | First line of the abstract.\n{pad} |"
    return f"| title | abstract |\n|---|---|\n| Small | Small. |\n{row}\n", len(row), 4


def abstracts_file(pad: str) -> Built:
    paragraph = f"First line of the abstract.\n{pad}"
    return f"ICLR 2024 Papers\n\nSmall.\n\n{paragraph}\n\nLast.\n", len(paragraph), 5


def note(note_id: str, abstract: str) -> str:
    content = {"title": {"value": "A Paper"}, "abstract": {"value": abstract}}
    return json.dumps({"id": note_id, "forum": note_id, "content": content})


def notes_document_file(pad: str) -> Built:
    record = note("Big_1", pad)
    return (
        f'{{"notes": [\n{note("Small_1", "Small.")},\n{record}\n], "count": 2}}\n',
        len(record),
        3,
    )


def notes_lines_file(pad: str) -> Built:
    record = note("Big_1", pad)
    return f"{note('Small_1', 'Small.')}\n{record}\n", len(record), 2


def atom_entry(arxiv_id: str, summary: str) -> str:
    return (
        "<entry>\n"
        f"  <id>http://arxiv.org/abs/{arxiv_id}v1</id>\n"
        "  <title>A title</title>\n"
        f"  <summary>{summary}</summary>\n"
        "</entry>"
    )


def arxiv_file(pad: str) -> Built:
    record = atom_entry("2402.00002", pad)
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"{atom_entry('2402.00001', 'Small.')}\n{record}\n</feed>\n"
    )
    return text, len(record) - len("</entry>"), 8


def bibtex_file(pad: str) -> Built:
    record = f"@article{{big,\n  title = {{Big}},\n  abstract = {{{pad}}}\n}}"
    small = "@article{small,\n  title = {Small},\n  abstract = {Small.}\n}"
    return f"{small}\n\n{record}\n", len(record), 6


def ris_file(pad: str) -> Built:
    record = f"TY  - JOUR\nTI  - Big\nAB  - {pad}\nER  - "
    return f"TY  - JOUR\nTI  - Small\nAB  - Small.\nER  - \n\n{record}\n", len(record), 6


BUILDERS: dict[str, tuple[Callable[[str], Built], str]] = {
    "jsonl": (jsonl_file, "this line"),
    "json array": (json_array_file, "this array element"),
    "csv": (csv_file, "this row"),
    "table": (table_file, "this row"),
    "abstracts": (abstracts_file, "this paragraph"),
    "openreview document": (notes_document_file, "this value"),
    "openreview lines": (notes_lines_file, "this line"),
    "arxiv": (arxiv_file, "this entry"),
    "bibtex": (bibtex_file, "this entry"),
    "ris": (ris_file, "this record"),
}


def file_with_record_of(tmp_path, builder: Callable[[str], Built], size: int) -> tuple[str, int]:
    _, base, _ = builder("")
    text, measured, line = builder("a" * (size - base))
    assert measured == size
    path = tmp_path / "records.txt"
    path.write_text(text, encoding="utf-8")
    return str(path), line


@pytest.fixture(params=["whole", "streamed"])
def reading(request, monkeypatch):
    """Small files are read from their head, whole; a head shorter than the file makes the
    import read it as it goes (a line or a block at a time), as it reads a large file."""
    if request.param == "streamed":
        monkeypatch.setattr(formats, "HEAD_BYTES", 400)
    return request.param


@pytest.mark.parametrize("case", BUILDERS)
def test_a_record_one_byte_over_the_limit_is_refused_with_its_line(case, reading, tmp_path):
    builder, what = BUILDERS[case]
    path, line = file_with_record_of(tmp_path, builder, LIMIT + 1)
    with pytest.raises(CommandError) as failure:
        call_command("import_papers", path, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(failure.value)
    assert message.startswith(f"{path}:{line}: {what} is "), message
    assert "at most 4,000 bytes (IMPORT_MAX_RECORD_BYTES)" in message
    assert message.endswith("Nothing was imported.")
    assert Paper.objects.count() == 0


@pytest.mark.parametrize("case", BUILDERS)
def test_a_record_at_the_limit_imports(case, reading, tmp_path):
    builder, _ = BUILDERS[case]
    path, _ = file_with_record_of(tmp_path, builder, LIMIT)
    call_command("import_papers", path, stdout=io.StringIO(), stderr=io.StringIO())
    assert Paper.objects.filter(abstract__endswith="a" * 100).count() == 1


def test_a_line_over_the_limit_is_measured_to_its_end_without_being_kept(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text('{"abstract": "' + "a" * 3 * LIMIT + '"}\r\n{"abstract": "Fine."}\n')
    with pytest.raises(ImportErrors) as failure:
        import_paths([str(path)])
    assert str(failure.value) == (
        f"{path}:1: this line is {3 * LIMIT + 16:,} bytes; "
        "a record may be at most 4,000 bytes (IMPORT_MAX_RECORD_BYTES)"
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("array.json", json_array_file("x")[0]),
        ("notes.json", notes_document_file("x")[0]),
        ("refs.bib", bibtex_file("x")[0]),
    ],
)
def test_a_file_parsed_whole_is_refused_over_the_file_limit(settings, tmp_path, name, text):
    settings.IMPORT_MAX_FILE_BYTES = len(text) - 1
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportErrors) as failure:
        # A head shorter than the file (long enough to tell the format): it is not in memory.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(formats, "HEAD_BYTES", min(150, len(text) - 1))
            import_paths([str(path)])
    assert str(failure.value).startswith(f"{path}: the file is {len(text):,} bytes; ")
    assert f"at most {len(text) - 1:,} bytes (IMPORT_MAX_FILE_BYTES)" in str(failure.value)
    assert Paper.objects.count() == 0


def test_a_fifty_megabyte_line_is_refused_holding_a_fraction_of_it(settings, tmp_path):
    # The attack: one huge line, mostly a field nobody reads. It was read whole (695 MB at the
    # peak for 200 MB); now the import holds at most the default limit of it.
    settings.IMPORT_MAX_RECORD_BYTES = 16 * MB
    path = tmp_path / "huge.jsonl"
    with path.open("w", encoding="ascii") as file:
        file.write('{"forum_id": "big1", "title": "Big", "abstract": "A.", "ignored": "')
        block = "x" * MB
        for _ in range(50):
            file.write(block)
        file.write('"}\n')
    size = path.stat().st_size - 1
    tracemalloc.start()
    try:
        with pytest.raises(ImportErrors) as failure:
            import_paths([str(path)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(failure.value).startswith(f"{path}:1: this line is {size:,} bytes; ")
    assert "at most 16 MB (IMPORT_MAX_RECORD_BYTES)" in str(failure.value)
    assert peak < 20 * MB, f"peak {peak / MB:.1f} MB"
    assert Paper.objects.count() == 0
