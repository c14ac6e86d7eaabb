"""Readers turn files into PaperRecords without the database; bad input fails with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from papers.importing import abstract_list, csv_reader, jsonl, table_dump
from papers.importing.formats import detect_format, read_records
from papers.importing.records import ImportFailed, validate_record
from papers.importing.tags import classify_tags, venue_from_heading

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TABLE_SEED = next(FIXTURES.glob("000_*.txt"))
ABSTRACT_SEED = next(FIXTURES.glob("001_*.txt"))

HEADER = """title
stringlengths 15
138
| url
stringlengths 42
42
| authors
stringlengths 7
526
| tags
stringclasses 3
values | abstract
stringlengths 480
3.09k
| pdf
stringlengths 71
71
|
|---|---|---|---|---|---|
"""
URL = "https://openreview.net/forum?id="
PDF = "https://openreview.net/pdf/abc.pdf"


def row(title="A paper", forum="abc123", authors="Ann One,Bob Two", abstract="Abstract.", pdf=PDF):
    return f"{title} | {URL}{forum} | {authors} | ICLR 2024,Poster | {abstract} | {pdf} |\n"


def read_table(text: str):
    return list(table_dump.read(text, "dump.txt"))


def test_table_seed_gives_100_records_with_ordered_authors_and_tags():
    records = list(read_records(TABLE_SEED))
    assert len(records) == 100
    first = records[0]
    assert first.title.startswith("RAPTOR")
    assert first.forum_id == "" and first.forum_url == f"{URL}GN921JHCRw"
    assert validate_record(first).forum_id == "GN921JHCRw"
    assert first.authors[0] == "Parth Sarthi" and first.authors[-1] == "Christopher D Manning"
    assert first.tags == ["ICLR 2024", "Poster"]
    assert first.line == 23
    assert all(r.pdf_url.startswith("https://openreview.net/pdf/") for r in records)


def test_table_keeps_multiline_abstracts_byte_identical_and_ignores_viewer_text():
    text = (
        HEADER
        + row(abstract="Line one.\n\nLine two with $x^2$ and \\textit{it}.")
        + row(forum="def456")
    )
    text += "Subsets and Splits\n\nNo community queries yet\nThe top public SQL queries ...\n"
    records = read_table(text)
    assert [r.abstract for r in records] == [
        "Line one.\n\nLine two with $x^2$ and \\textit{it}.",
        "Abstract.",
    ]
    assert [r.line for r in records] == [20, 23]


def test_table_gives_a_stray_pipe_in_the_abstract_to_the_abstract():
    records = read_table(HEADER + row(abstract="We bound | x | and a | b | c by $|y|$."))
    assert records[0].abstract == "We bound | x | and a | b | c by $|y|$."
    assert records[0].pdf_url == PDF


def test_table_row_with_a_missing_column_fails_with_its_line():
    bad = "Title | https://openreview.net/forum?id=x1 | Ann | ICLR 2024 | " + PDF + " |\n"
    with pytest.raises(ImportFailed) as failure:
        read_table(HEADER + row() + bad)
    assert str(failure.value).startswith("dump.txt:21: row has 5 columns, expected 6")


def test_table_row_with_an_extra_column_fails_with_its_line():
    with pytest.raises(ImportFailed) as failure:
        read_table(HEADER + row(pdf=PDF + " | extra"))
    assert str(failure.value).startswith("dump.txt:20: row has 7 columns, expected 6")


def test_table_columns_are_found_by_name_in_any_order_with_extra_columns():
    text = (
        "abstract\nstring\n| venue_notes\nstring\n| pdf\nstring\n| title\nstring\n"
        "| authors\nstring\n| url\nstring\n|\n|---|---|---|---|---|---|\n"
        f"Our abstract. | some note | {PDF} | Other order | Zoë Ä,Li Wei | {URL}zz9 |\n"
    )
    [record] = read_table(text)
    assert (record.title, record.abstract, record.authors) == (
        "Other order",
        "Our abstract.",
        ["Zoë Ä", "Li Wei"],
    )
    assert validate_record(record).forum_id == "zz9"


def test_markdown_style_table_with_leading_bars_parses():
    text = "| title | abstract |\n|---|---|\n| Short | One | two. |\n"
    [record] = read_table(text)
    assert (record.title, record.abstract, record.line) == ("Short", "One | two.", 3)


def test_table_without_rows_or_cut_off_fails():
    with pytest.raises(ImportFailed, match="no rows"):
        read_table(HEADER + "Subsets and Splits\n")
    with pytest.raises(ImportFailed, match=r"dump.txt:20: row never ends"):
        read_table(HEADER + "Title | url | cut off here\n")


def test_abstract_list_seed_gives_19_untitled_records_with_the_venue_tag():
    records = list(read_records(ABSTRACT_SEED))
    assert len(records) == 19
    assert all(r.title == "" and r.tags == ["ICLR 2024"] for r in records)
    raw_lines = ABSTRACT_SEED.read_text(encoding="utf-8").split("\n")
    for record in records:
        assert raw_lines[record.line - 1] == record.abstract.split("\n")[0]


def test_abstract_list_paragraphs_keep_their_lines():
    text = "NeurIPS 2023 Accepted Papers\n\nFirst line\nsecond line.\n\n\nOther abstract.\n"
    records = list(abstract_list.read(text, "list.txt"))
    assert [(r.line, r.abstract) for r in records] == [
        (3, "First line\nsecond line."),
        (7, "Other abstract."),
    ]
    assert records[0].tags == ["NeurIPS 2023"]


def test_jsonl_accepts_lists_or_comma_strings_aliases_and_ignores_unknown_fields():
    text = (
        '{"title": "T1", "url": "https://openreview.net/forum?id=AbC_1-x",'
        ' "authors": ["A B", "C D"],'
        ' "tags": ["ICLR 2024", "Oral"], "abstract": "One.", "pdf": null, "keywords": ["k"],'
        ' "status": "Oral", "id_match": "exact_title"}\n'
        "\n"
        '{"title": "T2", "forum_id": "Xy2", "authors": "E F, G H", "tags": "ICLR 2024,Spotlight",'
        ' "abstract": "Two.", "pdf_url": "https://x.org/p.pdf", "forum_url": "http://x.org/f"}\n'
    )
    first, second = (validate_record(r) for r in jsonl.read(text, "c.jsonl"))
    assert (first.forum_id, first.authors, first.line) == ("AbC_1-x", ["A B", "C D"], 1)
    assert first.tags == ["ICLR 2024", "Oral"]
    assert (second.forum_id, second.authors, second.line) == ("Xy2", ["E F", "G H"], 3)
    assert (second.pdf_url, second.forum_url) == ("https://x.org/p.pdf", "http://x.org/f")
    assert second.tags == ["ICLR 2024", "Spotlight"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"abstract": "ok"}\n{"abstract": \n', "c.jsonl:2: invalid JSON"),
        ('{"abstract": "ok"}\n["a list"]\n', "c.jsonl:2: each line must be a JSON object"),
        ('{"abstract": "ok", "authors": 3}\n', "c.jsonl:1: authors must be a list of strings"),
        ('{"abstract": "ok", "title": {"x": 1}}\n', "c.jsonl:1: field 'title' must be text"),
    ],
)
def test_jsonl_errors_name_the_line(text, message):
    with pytest.raises(ImportFailed) as failure:
        list(jsonl.read(text, "c.jsonl"))
    assert str(failure.value).startswith(message)


def test_json_array_is_read_with_element_lines():
    text = '[\n  {"title": "A", "abstract": "x"},\n  {"title": "B", "abstract": "y"}\n]\n'
    assert [(r.title, r.line) for r in jsonl.read(text, "a.json")] == [("A", 2), ("B", 3)]


def test_csv_with_quoted_multiline_cells_comma_strings_and_json_lists():
    text = (
        "title,url,authors,tags,abstract,pdf\n"
        'First,https://openreview.net/forum?id=c1,"Ann One, Bob Two","ICLR 2024,Poster",'
        '"Para one.\n\nPara two, with a comma.",\n'
        'Second,,"[""Zoë Q"", ""Li, Jr""]","[""ICLR 2024""]",Short.,https://o.net/p.pdf\n'
    )
    first, second = (validate_record(r) for r in csv_reader.read(text, "e.csv"))
    assert (first.forum_id, first.authors, first.line) == ("c1", ["Ann One", "Bob Two"], 2)
    assert first.abstract == "Para one.\n\nPara two, with a comma."
    assert (second.authors, second.line, second.pdf_url) == (
        ["Zoë Q", "Li, Jr"],
        5,
        "https://o.net/p.pdf",
    )


def test_csv_row_with_wrong_column_count_names_its_line():
    text = "title,abstract\nA,one\nB,two,three\n"
    with pytest.raises(ImportFailed, match=r"^e.csv:3: row has 3 columns"):
        list(csv_reader.read(text, "e.csv"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"abstract": "x"}\n', "jsonl"),
        ('[{"abstract": "x"}]', "jsonl"),
        (HEADER + row(), "table"),
        ("title,abstract\nA,b\n", "csv"),
        ("ICLR 2024 Papers\n\nAn abstract.\n", "abstracts"),
    ],
)
def test_format_is_detected_from_content(text, expected):
    assert detect_format(text, "f") == expected


def test_undetectable_format_fails():
    with pytest.raises(ImportFailed, match="cannot tell the format"):
        detect_format("just one line of prose with no structure", "f.txt")


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        (["ICLR 2024", "Poster"], [("venue", "ICLR 2024"), ("track", "Poster")]),
        (
            ["NeurIPS 2023", "notable-top-5%"],
            [("venue", "NeurIPS 2023"), ("track", "notable-top-5%")],
        ),
        (["Oral", "ICML 2024"], [("track", "Oral"), ("venue", "ICML 2024")]),
        (
            ["NeurIPS", "Datasets and Benchmarks"],
            [("venue", "NeurIPS"), ("track", "Datasets and Benchmarks")],
        ),
        (["ICLR 2024", "  Invited Talk "], [("venue", "ICLR 2024"), ("track", "Invited Talk")]),
        (["ICLR 2024", "iclr  2024"], [("venue", "ICLR 2024")]),
    ],
)
def test_tags_split_into_venue_and_track(tags, expected):
    assert classify_tags(tags) == expected


def test_heading_names_the_venue():
    assert venue_from_heading("ICLR 2024 Papers") == "ICLR 2024"
    assert venue_from_heading("# NeurIPS 2023 accepted papers") == "NeurIPS 2023"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("pdf_url", "javascript:alert(1)", "pdf url 'javascript:alert(1)' is not an http(s) URL"),
        ("forum_url", "ftp://x.org/f", "forum url 'ftp://x.org/f' is not an http(s) URL"),
        # urlsplit raises on an unclosed IPv6 bracket: the import stopped with a traceback.
        ("forum_url", "http://[", "forum url 'http://[' is not an http(s) URL"),
        ("pdf_url", "https://[::1/x.pdf", "pdf url 'https://[::1/x.pdf' is not an http(s) URL"),
        ("pdf_url", "https://x.org/" + "a" * 490, "pdf url is 504 characters long"),
        ("abstract", "  \n", "record has no abstract"),
        ("forum_id", "bad id!", "forum id 'bad id!' is not an OpenReview id"),
    ],
)
def test_validation_rejects_values_the_model_cannot_hold(field, value, message):
    [record] = jsonl.read('{"title": "T", "abstract": "A."}\n', "v.jsonl")
    setattr(record, field, value)
    with pytest.raises(ImportFailed) as failure:
        validate_record(record)
    assert str(failure.value).startswith(f"v.jsonl:1: {message}")


def test_excel_csv_with_semicolons_and_a_multiline_abstract_is_detected_and_read(tmp_path):
    # Excel where the decimal separator is a comma saves "CSV" with ";" between cells, CRLF
    # line ends and a BOM; a cell holding a ";" or a line break is quoted.
    text = (
        "\ufefftitle;authors;abstract;tags\r\n"
        'Scaling Laws;"Jörg Müller, Søren Kierkegaard";"Line one; with a semicolon.\r\n'
        'Line two.";"NeurIPS 2023,Poster"\r\n'
        "Second;Zoë Ünal;Short.;ICML 2023\r\n"
    )
    path = tmp_path / "export.csv"
    path.write_bytes(text.encode("utf-8"))
    first, second = (validate_record(r) for r in read_records(path))
    assert (first.title, first.authors, first.tags, first.line) == (
        "Scaling Laws",
        ["Jörg Müller", "Søren Kierkegaard"],
        ["NeurIPS 2023", "Poster"],
        2,
    )
    assert first.abstract == "Line one; with a semicolon.\nLine two."
    assert (second.title, second.authors, second.line) == ("Second", ["Zoë Ünal"], 4)


def test_tab_separated_values_are_detected_and_read(tmp_path):
    # Google Sheets' and Excel's "Tab-separated values": commas and semicolons inside cells.
    text = "title\tauthors\tabstract\nGraphs, again\tAnn Lee, Bo Li\tOne; two, three.\n"
    path = tmp_path / "sheet.tsv"
    path.write_text(text, "utf-8")
    (record,) = (validate_record(r) for r in read_records(path))
    assert (record.title, record.authors, record.abstract) == (
        "Graphs, again",
        ["Ann Lee", "Bo Li"],
        "One; two, three.",
    )


def test_a_comma_header_is_read_with_commas_even_when_cells_hold_semicolons():
    text = "title,abstract\nA;B,one; two\n"
    (record,) = csv_reader.read(text, "e.csv")
    assert (record.title, record.abstract) == ("A;B", "one; two")


RIS_RECORD = (
    "TY  - CONF\r\nTI  - Segment Anything in High Quality\r\nAU  - Müller, Jörg\r\n"
    "T2  - Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition "
    "(CVPR)\r\nPY  - 2023\r\nAB  - Masks ∑.\r\nER  - \r\n"
)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_read(tmp_path, encoding):
    # EndNote and Excel on Windows save "Unicode" text as UTF-16 with a byte order mark.
    path = tmp_path / "cvpr.ris"
    data = RIS_RECORD.encode(encoding)
    path.write_bytes(data if encoding == "utf-16" else b"\xfe\xff" + data)
    (record,) = (validate_record(r) for r in read_records(path))
    assert (record.title, record.authors, record.tags, record.abstract, record.line) == (
        "Segment Anything in High Quality",
        ["Jörg Müller"],
        ["CVPR 2023"],
        "Masks ∑.",
        1,
    )


def test_broken_utf16_fails_with_its_line(tmp_path):
    path = tmp_path / "cvpr.ris"
    # An unpaired high surrogate on the third line.
    path.write_bytes("TY  - CONF\nTI  - A\nAU  - ".encode("utf-16") + b"\x00\xd8A\x00\n\x00")
    with pytest.raises(ImportFailed) as failure:
        list(read_records(path))
    assert str(failure.value).startswith(f"{path}:3: not UTF-16"), failure.value
