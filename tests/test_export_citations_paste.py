"""Citations that paste (issue 27, point 4): names with particles and suffixes split as
reference managers split them, keys for papers without authors from their title, and titles in
RIS and CSL-JSON (and so in the Cite box's APA and IEEE) as plain Unicode text."""

from __future__ import annotations

import pytest

from annotations.export_data import ExportPaper
from annotations.exports import bibtex_name, citation_key, csl_record, name_parts, ris_record
from annotations.templatetags.citation_tags import formatted_reference


@pytest.mark.parametrize(
    ("name", "bibtex", "csl"),
    [
        ("Sylvain Le Corff", "Le Corff, Sylvain", {"family": "Le Corff", "given": "Sylvain"}),
        (
            "Laurens van der Maaten",
            "van der Maaten, Laurens",
            {"family": "van der Maaten", "given": "Laurens"},
        ),
        (
            "John Smith Jr.",
            "Smith, Jr., John",
            {"family": "Smith", "given": "John", "suffix": "Jr."},
        ),
        ("Henry Ford II", "Ford, II, Henry", {"family": "Ford", "given": "Henry", "suffix": "II"}),
        (
            "Jean-Claude Van Damme",
            "Van Damme, Jean-Claude",
            {"family": "Van Damme", "given": "Jean-Claude"},
        ),
        # A particle that is the whole given name stays a given name.
        ("Le Song", "Song, Le", {"family": "Song", "given": "Le"}),
        ("Ada King Lovelace", "Lovelace, Ada King", {"family": "Lovelace", "given": "Ada King"}),
    ],
)
def test_names_keep_their_particles_and_suffixes(name, bibtex, csl):
    assert bibtex_name(name) == bibtex
    assert csl_record(ExportPaper(1, "T", authors=[name]))["author"] == [csl]


def test_ris_writes_family_given_suffix():
    record = ris_record(ExportPaper(1, "T", year=2024, authors=["John Smith Jr."]))
    assert "AU  - Smith, John, Jr.\r\n" in record


def test_a_two_word_name_is_never_given_a_suffix():
    assert name_parts("Smith Jr.") == ("Jr.", "Smith", "")


def test_a_paper_without_authors_is_keyed_by_its_title():
    paper = ExportPaper(363, "Matryoshka Representation Learning", year=2024)
    assert citation_key(paper) == "matryoshka2024representation-363"
    assert citation_key(ExportPaper(7, "On it", year=2024)) == "paper2024-7"


def test_a_suffix_is_not_taken_for_the_family_name_in_a_key():
    paper = ExportPaper(5, "Attention please", year=2024, authors=["John Smith Jr."])
    assert citation_key(paper) == "smith2024attention-5"


@pytest.mark.parametrize(
    ("title", "plain"),
    [
        ("Nearly $d$-Linear Convergence Bounds", "Nearly d-Linear Convergence Bounds"),
        (r"$\alpha$TC-VAE: Disentangling", "αTC-VAE: Disentangling"),
        (r"Schr\"odinger Bridges", "Schrödinger Bridges"),
    ],
)
def test_text_formats_and_formatted_references_hold_no_latex(title, plain):
    paper = ExportPaper(9, title, year=2024, authors=["Ada Lovelace"])
    record = csl_record(paper)
    assert record["title"] == plain
    assert f"TI  - {plain}\r\n" in ris_record(paper)
    for style in ("apa", "ieee"):
        reference = formatted_reference(record, style)
        assert "$" not in reference and "\\" not in reference
        assert plain.split(":")[0].split()[-1] in reference


def test_bibtex_titles_brace_each_capitalised_word_and_read_back_unchanged():
    from annotations.exports import bibtex_entry
    from papers.importing import bibtex

    title = r"Monte Carlo Methods for Bayesian Schrödinger Bridges with $\alpha$-Divergences"
    entry = bibtex_entry(ExportPaper(3, title, year=2024, authors=["Ada Lovelace"]))
    assert (
        r"title = {{Monte} {Carlo} {Methods} for {Bayesian} {Schrödinger} {Bridges} with "
        r"{$\alpha$}{-Divergences}}" in entry
    )
    [record] = bibtex.read(entry, "cite.bib")
    assert record.title == title
