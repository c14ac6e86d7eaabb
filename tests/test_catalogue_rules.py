"""One home per rule: the test factories, the importer and the models normalise names, tags and
identifiers with the same functions (papers.text), so they agree on what is the same."""

from __future__ import annotations

import json

import pytest

from papers.importing.pipeline import import_paths
from papers.models import Author, Paper, Tag, TagKind
from papers.text import forum_id_from_url, is_arxiv_id, is_doi, normalize_arxiv_id, normalize_doi
from tests.factories import make_paper, make_tag

pytestmark = pytest.mark.django_db


def test_the_factory_makes_one_author_of_two_spellings():
    make_paper(authors=["J. Smith"])
    make_paper(authors=["j smith"])
    make_paper(authors=["Ｊ．Ｓｍｉｔｈ"])  # full-width letters: the same once NFKC-normalised
    assert list(Author.objects.values_list("name", flat=True)) == ["J. Smith"]


def test_the_factory_makes_one_tag_of_two_spellings():
    assert make_tag("Deep  RL ", TagKind.LAB) == make_tag("deep rl", TagKind.LAB)
    assert Tag.objects.get().name == "Deep RL"


def test_the_importer_finds_what_the_factories_made(tmp_path):
    paper = make_paper("Made", authors=["J. Smith"], tags=[("ICLR 2024", TagKind.VENUE)])
    path = tmp_path / "p.jsonl"
    record = {
        "forum_id": "imp1",
        "title": "Imported",
        "abstract": "Imported abstract.",
        "authors": ["j.  smith"],
        "tags": ["iclr 2024"],
    }
    path.write_text(json.dumps(record) + "\n", "utf-8")
    import_paths([str(path)])

    imported = Paper.objects.get(forum_id="imp1")
    assert list(imported.authors.all()) == list(paper.authors.all())  # the same Author row
    assert list(imported.tags.all()) == list(paper.tags.all())  # the same Tag row
    assert Author.objects.count() == 1 and Tag.objects.count() == 1


@pytest.mark.parametrize(
    ("typed", "arxiv_id"),
    [
        ("arXiv:2310.01234v2", "2310.01234"),
        ("hep-th/9901001v1", "hep-th/9901001"),
        ("math.GT/0309136", "math.GT/0309136"),
        ("2310.1", ""),
        ("see 2310.01234", ""),
        # Links as copied from the address bar: the id is what follows /abs/ or /pdf/.
        ("https://arxiv.org/pdf/2310.01234v2.pdf", "2310.01234"),
        ("arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
        # At most MAX_ARXIV_ID (50) characters.
        ("a" * 42 + "/1234567", "a" * 42 + "/1234567"),
        ("a" * 43 + "/1234567", ""),
    ],
)
def test_arxiv_ids(typed, arxiv_id):
    normalised = normalize_arxiv_id(typed)
    assert (normalised if is_arxiv_id(normalised) else "") == arxiv_id


@pytest.mark.parametrize(
    ("typed", "doi"),
    [
        ("https://doi.org/10.1000/ABC", "10.1000/abc"),
        ("doi: 10.48550/arXiv.1804.03599", "10.48550/arxiv.1804.03599"),
        ("10.1000", ""),
        ("11.1000/abc", ""),
        ("10.1000/a b", ""),
        # At most MAX_DOI (200) characters.
        ("10.1234/" + "x" * 192, "10.1234/" + "x" * 192),
        ("10.1234/" + "x" * 193, ""),
    ],
)
def test_dois(typed, doi):
    normalised = normalize_doi(typed)
    assert (normalised if is_doi(normalised) else "") == doi


def test_forum_id_from_a_forum_or_pdf_url():
    assert forum_id_from_url("https://openreview.net/forum?id=abc_1-X") == "abc_1-X"
    assert forum_id_from_url("https://openreview.net/pdf?id=abc&noteId=x") == "abc"
    assert forum_id_from_url("https://openreview.net/group?x=1") == ""
    # An unclosed "[" reads as an IPv6 host that cannot be parsed: typed text, no forum.
    assert forum_id_from_url("https://[openreview.net/forum?id=abc") == ""
