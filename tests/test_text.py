"""Name rules: the folding author search compares, the spelling key of tag variants."""

from __future__ import annotations

import pytest

from papers.tags.identity import spelling_key
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


@pytest.mark.parametrize(
    ("spellings", "same"),
    [
        (["Large Language Models", "large language model", "large-language model"], True),
        (["LLMs", "LLM"], True),
        (["Mixture of Experts", "mixture-of-experts"], True),
        (["simplicial complexes", "simplicial complex"], True),
        (["policies", "policy"], True),
        (["approaches", "approach"], True),
        (["analysis", "analysi"], False),  # not a plural
        (["diffusion model", "diffusion modeling"], False),
        (["ms", "m"], False),  # too short to tell
    ],
)
def test_spelling_keys_pair_plurals_and_hyphenations(spellings, same):
    keys = {spelling_key(name) for name in spellings}
    assert (len(keys) == 1) is same
