r"""LaTeX accents in author names are stored as the letters they make: arXiv, RIS and the other
sources spell "Erd\H{o}s" or "J{\"u}rgen" as BibTeX does, and one person is one author whichever
source names them. The decoder is the BibTeX reader's own (papers.importing.latex_text)."""

from __future__ import annotations

import time

import pytest

from papers.importing import arxiv, bibtex, ris
from papers.importing.latex_text import author_name_as_text
from papers.importing.pipeline import import_records
from papers.importing.records import PaperRecord, validate_record
from papers.models import Author
from tests.arxiv_feed import atom_entry, feed


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        (r"Paul Erd\H{o}s", "Paul Erdős"),
        (r"J{\"u}rgen Schmidhuber", "Jürgen Schmidhuber"),
        (r"\'{E}mile Borel", "Émile Borel"),
        (r"Fran\c{c}ois Chollet", "François Chollet"),
        (r"S{\o}ren Hauberg", "Søren Hauberg"),
        (r"Bernhard Sch{\"o}lkopf", "Bernhard Schölkopf"),
        (r"Hans Stra\ss{}er", "Hans Straßer"),
        (r"Hans Stra\ss er", "Hans Straßer"),
        (r"{\L}ukasz Kaiser", "Łukasz Kaiser"),
        (r"Jean-Fran{\c c}ois  Lalonde", "Jean-François Lalonde"),
    ],
)
def test_latex_accents_and_letters_become_unicode(written, stored):
    assert author_name_as_text(written) == stored


@pytest.mark.parametrize(
    "name",
    [
        "Zoë Ünal",
        "李雷",
        "{van der} Berg",  # braces without LaTeX may be meant: kept
        "O'Neil",
        r"\relax",  # reads as nothing: kept as written
    ],
)
def test_a_name_without_latex_to_decode_is_kept_as_written(name):
    assert author_name_as_text(name) == name


def test_arxiv_entries_give_their_authors_in_unicode():
    text = feed([atom_entry(authors=(r"Paul Erd\H{o}s", r"Kurt G\"odel", "Zoë Ünal"))], total=1)
    (record,) = arxiv.read(text, "q.xml")
    assert validate_record(record).authors == ["Paul Erdős", "Kurt Gödel", "Zoë Ünal"]


def test_ris_authors_are_given_in_unicode():
    text = (
        "TY  - JOUR\n"
        "TI  - Graphs\n"
        "AU  - Erd\\H{o}s, Paul\n"
        'AU  - Schmidhuber, J{\\"u}rgen\n'
        "AU  - Hauberg, S{\\o}ren\n"
        "DO  - 10.1000/graphs\n"
        "ER  - \n"
    )
    (record,) = ris.read(text, "refs.ris")
    assert validate_record(record).authors == ["Paul Erdős", "Jürgen Schmidhuber", "Søren Hauberg"]


@pytest.mark.django_db
def test_one_person_spelt_in_latex_and_in_unicode_by_three_sources_is_one_author():
    (from_bibtex,) = bibtex.read(
        "@article{a,\n  title = {One},\n  author = {Erd{\\H{o}}s, Paul and Fran\\c{c}ois, Ann},"
        "\n  doi = {10.1000/one},\n}\n",
        "refs.bib",
    )
    (from_arxiv,) = arxiv.read(
        feed([atom_entry("2402.00002", authors=(r"Paul Erd\H{o}s", "Ann François"))], total=1),
        "q.xml",
    )
    (from_ris,) = ris.read(
        "TY  - JOUR\nTI  - Three\nAU  - Erdős, Paul\nAU  - Fran\\c{c}ois, Ann\n"
        "DO  - 10.1000/three\nER  - \n",
        "refs.ris",
    )
    for record in (from_bibtex, from_arxiv, from_ris):
        import_records([record], source=record.source)
    assert sorted(Author.objects.values_list("name", flat=True)) == ["Ann François", "Paul Erdős"]
    for author in Author.objects.all():
        assert author.authorships.count() == 3


def test_a_hostile_list_of_latex_names_is_cut_without_decoding_it_all():
    # 2,000 names of 95 accents each: 580,000 characters of LaTeX, about 9 s to decode.
    names = [f"N{n} " + "\\'e" * 95 for n in range(2000)]
    record = PaperRecord("T", "forum1", "", "", names, [], "An abstract.", "x.jsonl", 1)
    started = time.perf_counter()
    validate_record(record)
    assert time.perf_counter() - started < 2
    assert "the author list is over 100000 characters: kept the first" in record.cleaned[-1]
