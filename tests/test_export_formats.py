"""A reading list as RIS and CSL-JSON, the formats reference managers and citeproc read: read
back (our RIS reader, a JSON parser) with every title, author and identifier intact."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotations.models import Visibility
from papers.importing import ris
from papers.models import TagKind
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

ICLR_2024 = "International Conference on Learning Representations (ICLR 2024)"
HOSTILE_TITLE = "Line one\nER  - \nTY  - JOUR"


@pytest.fixture
def shared_list():
    owner = make_user("owner")
    papers = [
        make_paper(
            r"$\alpha$-Flows: Über & 100%",
            authors=["Ludwig van Beethoven", "Plato", "Ada King Lovelace"],
            tags=[("ICLR 2024", TagKind.VENUE)],
            doi="10.1000/flows",
            pdf_url="https://openreview.net/pdf?id=f1",
        ),
        make_paper(HOSTILE_TITLE, authors=[]),
    ]
    return make_reading_list(owner, "Reading group", papers=papers, visibility=Visibility.SHARED)


def download(client, reading_list, name: str):
    client.force_login(reading_list.owner)
    response = client.get(reverse(f"annotations:list-export-{name}", args=[reading_list.pk]))
    assert response.status_code == 200
    return response


def test_ris_reads_back_with_titles_authors_venue_and_doi(client, shared_list):
    response = download(client, shared_list, "ris")
    assert response["Content-Type"] == "application/x-research-info-systems; charset=utf-8"
    assert response["Content-Disposition"].endswith(f'reading-group-{shared_list.pk}.ris"')
    text = response.getvalue().decode()
    flows, hostile = ris.read(text, "list.ris")
    # Text, not LaTeX: the math as the Unicode a reader sees (issue 27).
    assert flows.title == "α-Flows: Über & 100%"
    assert flows.authors == ["Ludwig van Beethoven", "Plato", "Ada King Lovelace"]
    # Written as the venue's full name, read back as the venue it was written from.
    assert f"T2  - {ICLR_2024}" in text
    assert (flows.tags, flows.doi) == (["ICLR 2024"], "10.1000/flows")
    # A line break in a title cannot end its record or start another: one line, two records.
    assert hostile.title == "Line one ER - TY - JOUR"
    assert hostile.authors == []


def test_csl_json_has_names_split_and_identifiers(client, shared_list):
    response = download(client, shared_list, "csl")
    assert response["Content-Type"] == "application/vnd.citationstyles.csl+json; charset=utf-8"
    flows, hostile = json.loads(response.getvalue())
    assert flows["type"] == "paper-conference"
    assert flows["title"] == "α-Flows: Über & 100%"
    assert flows["author"] == [
        {"family": "van Beethoven", "given": "Ludwig"},
        {"literal": "Plato"},
        {"family": "Lovelace", "given": "Ada King"},
    ]
    assert flows["container-title"] == ICLR_2024
    assert flows["DOI"] == "10.1000/flows"
    assert flows["issued"] == {"date-parts": [[2024]]}
    assert hostile["title"] == "Line one ER - TY - JOUR" and hostile["author"] == []
    assert flows["id"] != hostile["id"]


@pytest.mark.parametrize("name", ["ris", "csl"])
def test_another_members_private_list_is_not_exported(client, name):
    private = make_reading_list(make_user("owner"), "Mine", papers=[make_paper("Secret")])
    client.force_login(make_user("other"))
    response = client.get(reverse(f"annotations:list-export-{name}", args=[private.pk]))
    assert response.status_code == 404
    assert b"Secret" not in response.content


def test_the_list_page_links_every_format(client, shared_list):
    client.force_login(shared_list.owner)
    content = client.get(reverse("annotations:list-detail", args=[shared_list.pk])).content
    for name in ("bibtex", "ris", "csl", "csv"):
        url = reverse(f"annotations:list-export-{name}", args=[shared_list.pk])
        assert f'href="{url}"'.encode() in content


# --- Abstracts and keywords, as reference managers export them --------------------------


ABSTRACT = (
    "We bound $\\mathcal{O}(n)$ regret.\n\nSecond paragraph: {braces} @misc{x, 100% \\emph{so}}"
)


@pytest.fixture
def described_list():
    paper = make_paper(
        "Described",
        abstract=ABSTRACT,
        authors=["Ada Lovelace"],
        tags=[
            ("ICLR 2024", TagKind.VENUE),
            ("bandits", TagKind.KEYWORD),
            ("regret", TagKind.KEYWORD),
        ],
    )
    return make_reading_list(make_user("owner"), "Described", papers=[paper, make_paper("Other")])


def test_bibtex_export_carries_the_abstract_and_keywords_intact(client, described_list):
    from papers.importing import bibtex

    text = download(client, described_list, "bibtex").getvalue().decode()
    described, other = bibtex.read(text, "list.bib")  # one entry each, nothing spilled over
    assert " ".join(described.abstract.split()) == " ".join(ABSTRACT.split())
    assert sorted(described.keywords) == ["bandits", "regret"]
    assert "{$\\mathcal{O}(n)$}" in text  # math kept as math
    assert other.title == "Other"


def test_ris_and_csl_exports_carry_the_abstract_and_keywords(client, described_list):
    ris_text = download(client, described_list, "ris").getvalue().decode()
    [described, _] = ris.read(ris_text, "list.ris")
    assert described.abstract == " ".join(ABSTRACT.split())  # RIS values are one line
    assert sorted(described.keywords) == ["bandits", "regret"]
    csl = json.loads(download(client, described_list, "csl").getvalue())
    assert csl[0]["abstract"] == " ".join(ABSTRACT.split())
    assert csl[0]["keyword"] == "bandits, regret"


def test_the_cite_box_bibtex_has_no_abstract(client, described_list):
    from annotations.exports import bibtex_entry

    paper = described_list.papers.get(title="Described")
    paper.author_list = ["Ada Lovelace"]  # as the exports and the Cite box read the authors
    assert "abstract" not in bibtex_entry(paper)
    assert "abstract = " in bibtex_entry(paper, with_abstract=True)
