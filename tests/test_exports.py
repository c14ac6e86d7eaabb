"""Reading-list exports: BibTeX that a real parser reads back, CSV safe for spreadsheets."""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import product

import bibtexparser
import pybtex.database
import pybtex.errors
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from annotations.exports import (
    _bibtex_field,
    _is_brace_balanced,
    bibtex_escape,
    bibtex_name,
    csv_for_items,
)
from annotations.models import Priority, ReadingStatus, Visibility
from annotations.selectors import list_items_for_export
from papers.models import Paper, TagKind
from tests.factories import make_paper, make_reading_list, make_user
from tests.query_helpers import outside_cache

# How a citation names the venues tagged "ICLR 2024" and "NeurIPS 2023" (papers.venues.VENUE_NAMES).
ICLR_2024 = "International Conference on Learning Representations (ICLR 2024)"
NEURIPS_2023 = "Advances in Neural Information Processing Systems (NeurIPS 2023)"

HARD_TITLE = "Über-fast {Braces} & 50% of $x$_1 #2 ~ C:\\path"
HARD_AUTHORS = ["Zoë Ångström-Bär", "Ludwig van Beethoven", "José {Weird} Núñez", "Plato"]

# The title and author from the security report: with `\{`-style escaping, pybtex read the
# title as the end of the entry plus a new @misc entry, and the author as three names.
ISSUE_TITLE = '} @misc(injected, title = "Injected entry", author = "Mallory")'
ISSUE_AUTHOR = "Eve} and {Mallory"


def _latex_decoder() -> LatexNodes2Text:
    """bibtexparser's default LaTeX decoder (pylatexenc), plus three standard LaTeX text
    commands pylatexenc 2.11 gets wrong: it drops \\textbraceleft and \\textbraceright and
    turns \\textasciicircum into U+02C6 where LaTeX prints "^"."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "paperbrowser-exports",
        prepend=True,
        macros=[
            MacroTextSpec("url", simplify_repl="%s"),  # as bibtexparser's default
            MacroTextSpec("textbraceleft", simplify_repl="{"),
            MacroTextSpec("textbraceright", simplify_repl="}"),
            MacroTextSpec("textasciicircum", simplify_repl="^"),
        ],
    )
    return LatexNodes2Text(latex_context=context, keep_braced_groups=False, math_mode="verbatim")


DECODER = _latex_decoder()


def _parse(text: str):
    library = bibtexparser.parse_string(
        text, append_middleware=[LatexDecodingMiddleware(decoder=DECODER)]
    )
    assert library.failed_blocks == []
    return library


@dataclass
class ReadBack:
    """One entry as a parser read it: LaTeX decoded, authors first-name-first."""

    key: str
    entry_type: str
    fields: dict[str, str]
    authors: list[str]


def _decode_field(name: str, value: str) -> str:
    # url is verbatim: a LaTeX decoder would take its `%` for a comment.
    return value if name == "url" else DECODER.latex_to_text(value)


def _read_with_pybtex(text: str) -> list[ReadBack]:
    # pybtex's own decoder (latexcodec) knows neither \\textbraceleft nor \\$, so its raw
    # values go through the same pylatexenc decoder as bibtexparser's.
    with pybtex.errors.capture() as errors:
        data = pybtex.database.parse_string(text, "bibtex")
    assert errors == []
    entries = []
    for key, entry in data.entries.items():
        authors = [
            DECODER.latex_to_text(
                " ".join(
                    person.first_names
                    + person.middle_names
                    + person.prelast_names
                    + person.last_names
                    + person.lineage_names
                )
            )
            for person in entry.persons.get("author", [])
        ]
        fields = {name: _decode_field(name, value) for name, value in entry.fields.items()}
        entries.append(ReadBack(key, entry.type, fields, authors))
    return entries


def _read_with_bibtexparser(text: str) -> list[ReadBack]:
    raw = bibtexparser.parse_string(text)
    decoded = bibtexparser.parse_string(
        text,
        append_middleware=[
            SeparateCoAuthors(),
            SplitNameParts(),
            LatexDecodingMiddleware(decoder=DECODER),
        ],
    )
    assert raw.failed_blocks == [] and decoded.failed_blocks == []
    entries = []
    for raw_entry, entry in zip(raw.entries, decoded.entries, strict=True):
        fields = {
            field.key: raw_entry.fields_dict[field.key].value if field.key == "url" else field.value
            for field in entry.fields
            if field.key != "author"
        }
        author = entry.fields_dict.get("author")
        # The decoding middleware leaves lists of names alone: each name is decoded here.
        names = author.value if author else []
        authors = [DECODER.latex_to_text(name.merge_first_name_first) for name in names]
        entries.append(ReadBack(entry.key, entry.entry_type, fields, authors))
    return entries


def _entries_by_brace_counting(text: str) -> int:
    """Entries as BibTeX delimits them: it counts every brace, backslash or not, and an entry
    starts at an `@` outside all braces. Each such `@` must be one of ours, and each entry
    must close exactly once."""
    depth = starts = closes = 0
    for ch in text:
        if ch == "@" and depth == 0:
            starts += 1
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            assert depth >= 0, "a brace closes more than was opened"
            if depth == 0:
                closes += 1
    assert depth == 0, "an entry is left open"
    assert starts == closes
    return starts


def _read_back(text: str) -> list[ReadBack]:
    """The export as pybtex and bibtexparser 2 read it; they must agree with each other and
    with BibTeX's own brace counting."""
    by_pybtex = _read_with_pybtex(text)
    by_bibtexparser = _read_with_bibtexparser(text)
    assert by_pybtex == by_bibtexparser
    assert _entries_by_brace_counting(text) == len(by_pybtex)
    return by_pybtex


def _as_exported(text: str) -> str:
    """What an export keeps of a text: all of it, except that control characters and runs
    of whitespace become one space."""
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)
    return " ".join(text.split())


def _export(client, reading_list) -> str:
    response = client.get(reverse("annotations:list-export-bibtex", args=[reading_list.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert "attachment;" in response["Content-Disposition"]
    return response.getvalue().decode()


@pytest.fixture
def hard_list(user):
    paper = make_paper(
        HARD_TITLE,
        authors=HARD_AUTHORS,
        tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK)],
        forum_url="https://openreview.net/forum?id=ab_c%2D",
    )
    return make_reading_list(user, "Hard & odd", papers=[paper])


def test_bibtex_round_trips_titles_and_authors(client, user, hard_list):
    client.force_login(user)
    library = _parse(_export(client, hard_list))
    [entry] = library.entries
    assert entry.entry_type == "inproceedings"
    assert entry.fields_dict["title"].value == HARD_TITLE
    assert entry.fields_dict["author"].value == (
        "Ångström-Bär, Zoë and van Beethoven, Ludwig and Núñez, José {Weird} and Plato"
    )
    assert entry.fields_dict["booktitle"].value == ICLR_2024
    assert entry.fields_dict["year"].value == "2024"


def test_bibtex_url_is_kept_verbatim(client, user, hard_list):
    client.force_login(user)
    library = bibtexparser.parse_string(_export(client, hard_list))
    assert library.entries[0].fields_dict["url"].value == "https://openreview.net/forum?id=ab_c%2D"


def test_bibtex_keys_are_unique_and_plain_ascii(client, user):
    papers = [
        make_paper("Attention again", authors=["Ada Lövelace"], tags=[("ICLR 2024", "venue")])
        for _ in range(3)
    ]
    reading_list = make_reading_list(user, "Same", papers=papers)
    client.force_login(user)
    keys = [entry.key for entry in _parse(_export(client, reading_list)).entries]
    assert len(keys) == 3 and len(set(keys)) == 3
    # Each key ends in its paper's id: unique, and the same in any export of that paper.
    assert keys == [f"lovelace2024attention-{paper.pk}" for paper in papers]
    assert all(key.replace("-", "").isalnum() and key.isascii() for key in keys)


@pytest.mark.parametrize(
    ("title", "word"),
    [
        (r"$\mathcal{B}$-Coder: Value-Based Deep Reinforcement Learning", "bcoder"),
        (r"$\alpha$-nets in \textsc{Practice}", "nets"),
        (r"\texttt{NAISR}: A 3D Neural Additive Model", "naisr"),
    ],
)
def test_bibtex_keys_leave_latex_command_names_out(client, user, title, word):
    paper = make_paper(title, authors=["Ada Lovelace"], tags=[("ICLR 2024", "venue")])
    reading_list = make_reading_list(user, "Math", papers=[paper])
    client.force_login(user)
    [entry] = _parse(_export(client, reading_list)).entries
    assert entry.key == f"lovelace2024{word}-{paper.pk}"


def test_bibtex_has_no_year_when_no_source_gives_one_never_the_year_it_was_added(client, user):
    paper = make_paper("No venue", authors=["Ada Lovelace"])
    Paper.objects.filter(pk=paper.pk).update(created_at=datetime(2021, 5, 1, tzinfo=UTC))
    reading_list = make_reading_list(user, "Old", papers=[paper])
    client.force_login(user)
    [entry] = _parse(_export(client, reading_list)).entries
    assert "year" not in entry.fields_dict
    assert "booktitle" not in entry.fields_dict
    assert entry.key == f"lovelacevenue-{paper.pk}"


def test_bibtex_of_an_untitled_authorless_paper_still_parses(client, user):
    reading_list = make_reading_list(user, "Odd", papers=[make_paper("", needs_curation=True)])
    client.force_login(user)
    [entry] = _parse(_export(client, reading_list)).entries
    assert "author" not in entry.fields_dict


def test_bibtex_cannot_be_broken_out_of_by_a_hostile_title(client, user):
    paper = make_paper("x}, author = {Evil}, note = {", authors=["A B"])
    reading_list = make_reading_list(user, "Hostile", papers=[paper])
    client.force_login(user)
    [entry] = _parse(_export(client, reading_list)).entries
    assert entry.fields_dict["title"].value == "x}, author = {Evil}, note = {"
    assert entry.fields_dict["author"].value == "B, A"


def _export_with_neighbour(client, user, paper) -> list[ReadBack]:
    """Export `paper` followed by an ordinary paper, read back by both parsers; the ordinary
    entry must come out exactly as written, whatever `paper` holds."""
    neighbour = make_paper(
        "Neighbour paper", authors=["Alan Turing"], tags=[("NeurIPS 2023", TagKind.VENUE)]
    )
    reading_list = make_reading_list(user, "Hostile", papers=[paper, neighbour])
    client.force_login(user)
    entries = _read_back(_export(client, reading_list))
    assert len(entries) == 2, "one entry per paper, no more"
    assert entries[1] == ReadBack(
        f"turing2023neighbour-{neighbour.pk}",
        "inproceedings",
        {
            "title": "Neighbour paper",
            "booktitle": NEURIPS_2023,
            "year": "2023",
            "abstract": neighbour.abstract,
        },
        ["Alan Turing"],
    )
    return entries


def test_bibtex_issue_title_and_author_stay_inside_their_entry(client, user):
    paper = make_paper(
        ISSUE_TITLE,
        authors=[ISSUE_AUTHOR, "Ada Lovelace"],
        tags=[("ICLR 2024", TagKind.VENUE)],
    )
    [entry, _] = _export_with_neighbour(client, user, paper)
    assert entry == ReadBack(
        f"mallory2024miscinjected-{paper.pk}",
        "inproceedings",
        {"title": ISSUE_TITLE, "booktitle": ICLR_2024, "year": "2024", "abstract": paper.abstract},
        [ISSUE_AUTHOR, "Ada Lovelace"],
    )


def test_bibtex_braces_in_text_are_written_as_text_commands():
    # BibTeX counts the brace in `\{` when balancing a field, so that escape cannot be used.
    assert bibtex_escape("a{b}c\\") == r"a\textbraceleft{}b\textbraceright{}c\textbackslash{}"
    assert bibtex_name(ISSUE_AUTHOR) == r"{Eve\textbraceright{} and \textbraceleft{}Mallory}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("50% of x_1 & y", r"50\% of x\_1 \& y", id="specials-without-braces"),
        pytest.param("~$^#", r"\textasciitilde{}\$\textasciicircum{}\#", id="only-specials"),
        pytest.param("é_{ü}", r"é\_\textbraceleft{}ü\textbraceright{}", id="with-braces"),
        pytest.param("a\\_%", r"a\textbackslash{}\_\%", id="with-a-backslash"),
        pytest.param("plain, text", "plain, text", id="nothing-to-escape"),
    ],
)
def test_bibtex_escape_writes_every_special_character_as_latex(text, expected):
    assert bibtex_escape(text) == expected


@pytest.mark.parametrize(
    "title",
    [
        pytest.param("an unbalanced { opening brace", id="open-brace"),
        pytest.param("a closing brace } too many", id="close-brace"),
        pytest.param("}}} {{{ and {{{", id="braces-both-ways"),
        pytest.param("{" * 300, id="300-opening-braces"),
        pytest.param("\\\\ double \\ backslashes", id="backslashes"),
        pytest.param("ends in a backslash \\", id="trailing-backslash"),
        pytest.param("@comment{ the rest of the file", id="at-comment"),
        pytest.param("x} @string{a = b} @misc{y, title = {z}", id="at-entries"),
        pytest.param('" # "quoted" # concatenated', id="quote-hash"),
        pytest.param("100% sure, % not a comment", id="percent"),
        pytest.param("key = value, note = {x}", id="equals-comma"),
        pytest.param("line\nbreak\r\nand\ttab and\x07BEL\x1bESC\x7f", id="control-characters"),
        pytest.param("Ünïcödé, 日本語 and 𝔘𝔫𝔦", id="non-ascii"),
        pytest.param(r"\textbraceleft{} looks like LaTeX \& is not", id="latex-lookalike"),
        pytest.param("$x^2$ & a_b ~ c #1", id="latex-specials"),
    ],
)
def test_bibtex_hostile_title_round_trips_as_one_entry(client, user, title):
    paper = make_paper(title, authors=["Ada Lovelace"], tags=[("ICLR 2024", TagKind.VENUE)])
    [entry, _] = _export_with_neighbour(client, user, paper)
    assert entry.fields == {
        "title": _as_exported(title),
        "booktitle": ICLR_2024,
        "year": "2024",
        "abstract": paper.abstract,
    }
    assert entry.authors == ["Ada Lovelace"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(ISSUE_AUTHOR, id="issue"),
        pytest.param("Tom {and} Jerry", id="braced-and"),
        pytest.param("Tom and Jerry", id="and-word"),
        pytest.param("and", id="only-and"),
        pytest.param("AND Mallory", id="leading-AND"),
        pytest.param("Eve And", id="trailing-And"),
        pytest.param("\\and Mallory", id="backslash-and"),
        pytest.param("Smith, Jr., John", id="commas"),
        pytest.param("Lovelace, Ada", id="inverted"),
        pytest.param("{Plato", id="open-brace"),
        pytest.param("Plato}", id="close-brace"),
        pytest.param("Trailing Backslash\\", id="trailing-backslash"),
        pytest.param("\\", id="only-backslash"),
        pytest.param("...", id="only-dots"),
        pytest.param("- -", id="only-hyphens"),
        pytest.param(", ,", id="only-commas"),
        pytest.param("!? #", id="only-punctuation"),
        pytest.param("@comment{x} Smith", id="at-comment"),
        pytest.param('" # " Quote', id="quote-hash"),
        pytest.param("100% Ada", id="percent"),
        pytest.param("others", id="others"),
        pytest.param("Ada\x07Lovelace\nKing", id="control-characters"),
        pytest.param("Jean-Paul Ångström-Bär", id="hyphens-non-ascii"),
        pytest.param("Vincent van der Berg", id="particles"),
        pytest.param(" ".join(["Verylongname"] * 23), id="23-words"),
        pytest.param("x" * 300, id="300-letters"),
    ],
)
def test_bibtex_hostile_author_is_exactly_one_name(client, user, name):
    paper = make_paper("Names", authors=[name, "Ada Lovelace"], tags=[("ICLR 2024", TagKind.VENUE)])
    [entry, _] = _export_with_neighbour(client, user, paper)
    assert entry.authors == [_as_exported(name), "Ada Lovelace"]
    assert entry.fields == {
        "title": "Names",
        "booktitle": ICLR_2024,
        "year": "2024",
        "abstract": paper.abstract,
    }


def test_bibtex_leaves_out_an_author_whose_name_is_blank(client, user):
    paper = make_paper("Blank", authors=[" \x1b ", "Ada Lovelace"])
    [entry, _] = _export_with_neighbour(client, user, paper)
    assert entry.authors == ["Ada Lovelace"]
    assert entry.key.startswith("blank-")  # no author to name it: its title does


def test_bibtex_nul_becomes_a_space():
    # SQLite stores NUL, PostgreSQL refuses it: checked on the escapers, without a database.
    title, author = "NUL\x00in a\x00title", "Eve\x00and\x00Mallory"
    text = (
        f"@misc{{nul,\n  title = {{{bibtex_escape(title)}}},\n"
        f"  author = {{{bibtex_name(author)}}}\n}}\n"
    )
    assert "\x00" not in text
    [entry] = _read_back(text)
    assert entry.fields == {"title": "NUL in a title"}
    assert entry.authors == ["Eve and Mallory"]


def test_bibtex_url_is_percent_encoded_and_brace_free(client, user):
    paper = make_paper("Linked", forum_url='https://example.org/a b/{x}\\y?q="ü"&id=ab_c%2D#frag')
    [entry, _] = _export_with_neighbour(client, user, paper)
    assert entry.fields["url"] == (
        "https://example.org/a%20b/%7Bx%7D%5Cy?q=%22%C3%BC%22&id=ab_c%2D#frag"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Ada Lovelace", "Lovelace, Ada"),
        ("Ada King Lovelace", "Lovelace, Ada King"),
        ("Vincent van der Berg", "van der Berg, Vincent"),
        ("Plato", "{Plato}"),
        ("Smith and Wesson", "{Smith and Wesson}"),
        ("R&D Team", "Team, R\\&D"),
        ("José {Weird} Núñez", r"Núñez, José \textbraceleft{}Weird\textbraceright{}"),
        ("Tom {and} Jerry", r"{Tom \textbraceleft{}and\textbraceright{} Jerry}"),
        (" \x00 ", ""),
    ],
)
def test_bibtex_names_are_last_comma_first(name, expected):
    assert bibtex_name(name) == expected


def test_bibtex_caret_is_escaped_not_raw(client, user):
    reading_list = make_reading_list(user, "Caret", papers=[make_paper("x^2")])
    client.force_login(user)
    assert "x\\textasciicircum{}2" in _export(client, reading_list)


def _csv_rows(client, reading_list) -> list[list[str]]:
    response = client.get(reverse("annotations:list-export-csv", args=[reading_list.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.getvalue().decode("utf-8-sig"))))


def test_csv_has_one_row_per_item_in_list_order(client, user):
    first = make_paper(
        "First",
        authors=["Ada Lovelace", "Alan Turing"],
        tags=[("ICLR 2024", "venue"), ("Poster", "track")],
        forum_url="https://openreview.net/forum?id=1",
        pdf_url="https://openreview.net/pdf?id=1",
    )
    second = make_paper("Second")
    reading_list = make_reading_list(user, "Queue", papers=[first, second])
    item = reading_list.items.get(paper=first)
    item.status, item.priority = ReadingStatus.READING, Priority.HIGH
    item.save()
    client.force_login(user)
    rows = _csv_rows(client, reading_list)
    assert rows[0] == ["title", "authors", "venue", "track", "status", "priority", "url", "pdf"]
    assert rows[1] == [
        "First",
        "Ada Lovelace; Alan Turing",
        "ICLR 2024",
        "Poster",
        "Reading",
        "High",
        "https://openreview.net/forum?id=1",
        "https://openreview.net/pdf?id=1",
    ]
    assert rows[2][0] == "Second" and rows[2][4] == "To read" and rows[2][5] == ""


@pytest.mark.parametrize("title", ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)"])
def test_csv_neutralises_formula_injection(user, title):
    reading_list = make_reading_list(user, "Danger", papers=[make_paper(title, authors=["=cmd"])])
    text = csv_for_items(list_items_for_export(reading_list)).removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][0] == "'" + title
    assert rows[1][1] == "'=cmd"


def test_exports_of_a_shared_list_work_for_other_members(client, user):
    reading_list = make_reading_list(
        user, "Shared", papers=[make_paper("Visible")], visibility=Visibility.SHARED
    )
    client.force_login(make_user("reader"))
    assert "Visible" in _export(client, reading_list)
    assert _csv_rows(client, reading_list)[1][0] == "Visible"


@pytest.mark.parametrize("authors_per_paper", [2, 25])
def test_export_has_bounded_queries(client, user, authors_per_paper):
    authors = {
        f"Paper {n}": [f"Given{k} Family{n}x{k}" for k in range(authors_per_paper)]
        for n in range(12)
    }
    papers = [
        make_paper(title, authors=names, tags=[("ICLR 2024", "venue")])
        for title, names in authors.items()
    ]
    reading_list = make_reading_list(user, "Many", papers=papers)
    client.force_login(user)
    # session, user, list, the items' order, then one batch: papers, paper_tags+tags,
    # authorships, their authors' names (and the export slots, a constant number); the
    # venue gives the year, so no paper's year added is read
    with CaptureQueriesContext(connection) as queries:
        bibtex = _export(client, reading_list)
    assert len(outside_cache(queries)) <= 8
    with CaptureQueriesContext(connection) as queries:
        rows = _csv_rows(client, reading_list)
    assert len(outside_cache(queries)) <= 8
    entries = _read_back(bibtex)
    assert {entry.fields["title"]: entry.authors for entry in entries} == authors
    assert {row[0]: row[1] for row in rows[1:]} == {
        title: "; ".join(names) for title, names in authors.items()
    }


# Two papers, so that each author list must stay with its own paper.
MANY_AUTHORS = [f"Given{n:02} Family{n:02}" for n in range(25)]
FEW_AUTHORS = ["Ada Lovelace", "Alan Turing"]


@pytest.fixture
def list_with_25_authors(user):
    many = make_paper("Many hands", authors=MANY_AUTHORS)
    few = make_paper("Few hands", authors=FEW_AUTHORS)
    return make_reading_list(user, "Crowd", papers=[many, few])


def test_bibtex_writes_every_author_in_order(client, user, list_with_25_authors):
    client.force_login(user)
    many, few = _read_back(_export(client, list_with_25_authors))
    assert many.authors == MANY_AUTHORS
    assert few.authors == FEW_AUTHORS


def test_csv_writes_every_author_in_order(client, user, list_with_25_authors):
    client.force_login(user)
    _, many, few = _csv_rows(client, list_with_25_authors)
    assert many[1] == "; ".join(MANY_AUTHORS)
    assert few[1] == "; ".join(FEW_AUTHORS)


def _balanced_by_walking(value: str) -> bool:
    """BibTeX's rule, one character at a time: every brace counts, backslash or not; the depth
    never drops below zero and ends at zero."""
    depth = 0
    for ch in value:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_brace_check_agrees_with_bibtex_counting_on_every_short_string():
    # Braces, a backslash, a fullwidth brace (not a brace to BibTeX) and a lone surrogate.
    alphabet = "{}\\\uff5b\ud800"
    strings = ["".join(chars) for n in range(8) for chars in product(alphabet, repeat=n)]
    assert len(strings) == 97_656
    for value in strings:
        assert _is_brace_balanced(value) == _balanced_by_walking(value), value


@pytest.mark.parametrize("value", ["}{", "\\{", "{\\}}", "a}", "{" * 1000 + "}" * 999])
def test_bibtex_field_refuses_unbalanced_braces(value):
    with pytest.raises(ValueError, match="unbalanced braces"):
        _bibtex_field("title", value)


def test_csv_starts_with_a_byte_order_mark_so_excel_reads_utf8(client, user):
    # Without it Excel shows "José Hernández" as "JosÃ© HernÃ¡ndez"; our importer takes it.
    reading_list = make_reading_list(
        user, "Accents", papers=[make_paper("Café", authors=["José Hernández"])]
    )
    client.force_login(user)
    response = client.get(reverse("annotations:list-export-csv", args=[reading_list.pk]))
    data = response.getvalue()
    assert data.startswith(b"\xef\xbb\xbftitle,")
    assert data.count(b"\xef\xbb\xbf") == 1
    assert "José Hernández" in data.decode("utf-8-sig")
