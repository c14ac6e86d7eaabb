"""A paper without a title (imported from an abstract alone, in the curation queue) is cited
and exported without a made-up title: the formats reference managers import leave the title
out, as they leave out a missing author; what people read says "[Untitled]", brackets and all,
so nobody takes it for the paper's title."""

from __future__ import annotations

import csv
import io
import json

import bibtexparser
import pytest
from django.urls import reverse

from annotations.exports import bibtex_entry
from papers.importing import ris
from papers.models import TagKind
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def untitled():
    return make_paper(
        "",
        authors=["Ada Lovelace"],
        tags=[("ICLR 2024", TagKind.VENUE)],
        needs_curation=True,
        curation_reason="Imported without a title",
    )


def download(client, paper, name: str) -> str:
    owner = make_user("owner")
    reading_list = make_reading_list(owner, "Queue", papers=[paper])
    client.force_login(owner)
    response = client.get(reverse(f"annotations:list-export-{name}", args=[reading_list.pk]))
    assert response.status_code == 200
    return response.getvalue().decode("utf-8-sig")  # a CSV starts with a BOM, for Excel


def test_bibtex_leaves_the_title_out_rather_than_writing_a_placeholder(client, untitled):
    text = download(client, untitled, "bibtex")
    [entry] = bibtexparser.parse_string(text).entries
    assert "title" not in entry.fields_dict
    assert entry.fields_dict["author"].value == "Lovelace, Ada"
    assert "Untitled" not in text and "curation" not in text


@pytest.mark.parametrize("blank", [" ", "\t\n"])
def test_a_title_of_only_whitespace_is_no_title_either(blank):
    entry = bibtex_entry(_with_author_list(make_paper(blank)))
    assert "title" not in entry  # never `title = {}`


def test_ris_has_no_title_line(client, untitled):
    text = download(client, untitled, "ris")
    assert "TI  -" not in text
    [record] = ris.read(text, "list.ris")
    assert record.title == "" and record.authors == ["Ada Lovelace"]


def test_csl_json_has_no_title(client, untitled):
    [record] = json.loads(download(client, untitled, "csl"))
    assert "title" not in record
    assert record["author"] == [{"family": "Lovelace", "given": "Ada"}]


def test_csv_marks_the_missing_title_in_brackets(client, untitled):
    rows = list(csv.DictReader(io.StringIO(download(client, untitled, "csv"))))
    assert [row["title"] for row in rows] == ["[Untitled]"]


def test_the_paper_pages_references_say_untitled_and_its_bibtex_has_no_title(client, untitled):
    response = client.get(reverse("annotations:paper-cite", args=[untitled.pk]))
    references = {slug: text for slug, _, text in response.context["references"]}
    assert references["apa"].startswith("Lovelace, A. (2024). [Untitled].")
    assert references["ieee"].startswith("A. Lovelace, “[Untitled]”")
    [entry] = bibtexparser.parse_string(response.context["bibtex"]).entries
    assert "title" not in entry.fields_dict


def _with_author_list(paper):
    paper.author_list = []  # what an export attaches to each paper it writes
    return paper
