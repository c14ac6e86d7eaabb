"""Reading-list exports: BibTeX that a real parser reads back, CSV safe for spreadsheets."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from django.urls import reverse

from annotations.exports import bibtex_name, csv_for_items
from annotations.models import Priority, ReadingStatus, Visibility
from papers.models import Paper, TagKind
from tests.factories import make_paper, make_reading_list, make_user

HARD_TITLE = "Über-fast {Braces} & 50% of $x$_1 #2 ~ C:\\path"
HARD_AUTHORS = ["Zoë Ångström-Bär", "Ludwig van Beethoven", "José {Weird} Núñez", "Plato"]


def _parse(text: str):
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    return library


def _export(client, reading_list) -> str:
    response = client.get(reverse("annotations:list-export-bibtex", args=[reading_list.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert "attachment;" in response["Content-Disposition"]
    return response.content.decode()


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
    assert entry.fields_dict["booktitle"].value == "ICLR 2024"
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
    assert keys[0] == "lovelace2024attention"
    assert all(key.replace("-", "").isalnum() and key.isascii() for key in keys)


def test_bibtex_year_falls_back_to_the_papers_creation_year(client, user):
    paper = make_paper("No venue", authors=["Ada Lovelace"])
    Paper.objects.filter(pk=paper.pk).update(created_at=datetime(2021, 5, 1, tzinfo=UTC))
    reading_list = make_reading_list(user, "Old", papers=[paper])
    client.force_login(user)
    [entry] = _parse(_export(client, reading_list)).entries
    assert entry.fields_dict["year"].value == "2021"
    assert "booktitle" not in entry.fields_dict


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


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Ada Lovelace", "Lovelace, Ada"),
        ("Ada King Lovelace", "Lovelace, Ada King"),
        ("Vincent van der Berg", "van der Berg, Vincent"),
        ("Plato", "{Plato}"),
        ("Smith and Wesson", "{Smith and Wesson}"),
        ("R&D Team", "Team, R\\&D"),
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
    return list(csv.reader(io.StringIO(response.content.decode())))


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
    rows = list(csv.reader(io.StringIO(csv_for_items(reading_list.items.all()))))
    assert rows[1][0] == "'" + title
    assert rows[1][1] == "'=cmd"


def test_exports_of_a_shared_list_work_for_other_members(client, user):
    reading_list = make_reading_list(
        user, "Shared", papers=[make_paper("Visible")], visibility=Visibility.SHARED
    )
    client.force_login(make_user("reader"))
    assert "Visible" in _export(client, reading_list)
    assert _csv_rows(client, reading_list)[1][0] == "Visible"


def test_export_has_bounded_queries(client, user, django_assert_max_num_queries):
    papers = [make_paper(authors=["A B", "C D"], tags=[("ICLR 2024", "venue")]) for _ in range(12)]
    reading_list = make_reading_list(user, "Many", papers=papers)
    client.force_login(user)
    # session, user, list, items with papers, authorships+authors, paper_tags+tags
    for name in ["annotations:list-export-bibtex", "annotations:list-export-csv"]:
        with django_assert_max_num_queries(6):
            client.get(reverse(name, args=[reading_list.pk]))
