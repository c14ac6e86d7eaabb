"""The name folding author search compares (papers.text.fold_author_name)."""

from __future__ import annotations

import pytest

from papers.text import fold_author_name


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("Jürgen Müller", "jurgen muller"),
        ("Christopher D. Manning", "christopher d manning"),
        ("Zoë Ødegaard", "zoe odegaard"),
        ("Łukasz Kaiser", "lukasz kaiser"),
        ("Straße", "strasse"),
        ("ＡＢＣ", "abc"),  # full-width letters, as NFKC reads them
        ("김철수", "김철수"),  # other scripts keep their letters
        ("が", "が"),  # Japanese voicing marks are not accents
    ],
)
def test_folding_drops_latin_accents_only(name, folded):
    assert fold_author_name(name) == folded
