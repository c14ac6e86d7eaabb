"""BibTeX names are split by BibTeX's own rules (bibtexparser's splitter), not a list of
particles of ours: any lower-case word before the family name joins it."""

from __future__ import annotations

import pytest

from annotations.exports import bibtex_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Jan te Velde", "te Velde, Jan"),  # "te" was missing from our own particle list
        ("Ana Maria da Silva", "da Silva, Ana Maria"),
        ("Charles-Louis de Secondat", "de Secondat, Charles-Louis"),
        ("bell hooks", "hooks, bell"),  # no capital word: the last word is the family name
        ("J. R. R. Tolkien", "Tolkien, J. R. R."),
    ],
)
def test_names_follow_bibtex_rules(name, expected):
    assert bibtex_name(name) == expected
