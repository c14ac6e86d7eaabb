"""The catalogue's text rules (papers/text.py): how names, tags and titles are compared,
sorted and keyed, what text is refused, and which identifiers are recognised."""

from __future__ import annotations

import re

import pytest

from papers.tags.identity import spelling_key, tag_name_problem, tag_search_key, tag_slug
from papers.text import (
    ELLIPSIS,
    MAX_FORUM_ID,
    MAX_OPENREVIEW_ID,
    abstract_fingerprint,
    area_label,
    author_name_problem,
    collapse_whitespace,
    cut_at_word,
    fold_author_name,
    has_visible_character,
    is_forum_id,
    is_number,
    is_placeholder_author,
    normalize_author_name,
    openreview_profile_id,
    paper_text_problem,
    title_key,
    title_sort_key,
    utf8_size,
)


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
        (["Gas", "Ga"], False),  # three letters: still too short
        (["deep graph networks", "deep neural networks"], False),  # every word counts
        (["graph neural networks-", "graph neural network"], True),  # a stray hyphen
    ],
)
def test_spelling_keys_pair_plurals_and_hyphenations(spellings, same):
    keys = {spelling_key(name) for name in spellings}
    assert (len(keys) == 1) is same


def test_a_spelling_key_reads_as_plain_words():
    assert spelling_key("Large-Language_Models") == "large language model"


# --- Sizes, spaces, numbers ------------------------------------------------------------------


def test_utf8_size_counts_bytes():
    assert utf8_size("abc") == 3
    assert utf8_size("é😀") == 2 + 4
    assert utf8_size("\ud800") == 3  # a lone surrogate, as a JSON escape writes it


def test_whitespace_collapses_to_single_spaces():
    assert collapse_whitespace("  graph \t neural\n\u00a0networks ") == "graph neural networks"


@pytest.mark.parametrize(
    ("text", "number"), [("42", True), ("²", False), ("٣", False), ("4x", False)]
)
def test_a_number_is_ascii_digits(text, number):
    assert is_number(text) is number


# --- Names and placeholders ------------------------------------------------------------------


def test_invisible_characters_are_not_part_of_an_author_key():
    assert (
        normalize_author_name("\u200bZed\u200bZero") == "zed zero"
    )  # a zero-width space separates
    assert normalize_author_name("Ze\u00addong Li") == "zedong li"  # a soft hyphen is nothing


@pytest.mark.parametrize(
    ("name", "placeholder"),
    [
        ("Anonymous", True),
        ("  anonymous   Author(s) ", True),
        ("Anonymous Authors", True),
        ("Anna Nymous", False),
    ],
)
def test_placeholder_authors(name, placeholder):
    assert is_placeholder_author(name) is placeholder


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("a", True),
        ("é", True),
        ("日本", True),
        ("€", True),
        (" \u00a0", False),
        ("\u200b\u00ad", False),  # format characters
        ("\u0301", False),  # a combining accent on its own
        ("\u3164\u2800", False),  # a Hangul filler and the blank Braille pattern
    ],
)
def test_visible_characters(text, visible):
    assert has_visible_character(text) is visible


def test_bidirectional_controls_are_refused_in_names_and_tags_but_not_other_scripts():
    assert author_name_problem("Zoë Ünal") == ""
    assert "bidirectional" in author_name_problem("Zoë\u202e Ünal")
    assert tag_name_problem("Schrödinger bridge") == ""
    assert "bidirectional" in tag_name_problem("\u202egat")


def test_a_title_or_abstract_may_hold_any_script_but_no_reordering_character():
    assert paper_text_problem("Title", "Zoë and 日本語, עברית\u200f") == ""  # an RLM only nudges
    problem = paper_text_problem("Title", "Safe\u202e text")
    assert problem.startswith("Title contains a bidirectional embedding, override or isolate")
    assert "(U+202A-U+202E, U+2066-U+2069)" in problem
    assert problem.endswith("which would reorder the text shown after it")


# --- Titles ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "sorted_as"),
    [
        ("éclair", "Eclair"),
        ('  "Zebra" crossings', 'Zebra" crossings'),  # what comes before the first letter
        ("$\\alpha$-nets", "alpha-nets"),  # math delimiters are not read
        ("$\\mathcal{B}$-Coder", "B-Coder"),  # nor the command styling a group
        ("{BERT} rediscovered", "BERT rediscovered"),
        ("a\x00b", "ab"),
    ],
)
def test_titles_sort_as_a_reader_alphabetises(title, sorted_as):
    assert title_sort_key(title) == title_sort_key(sorted_as)
    assert title_sort_key(title).startswith(sorted_as.casefold()[:1])


def test_a_title_without_letters_sorts_first():
    assert title_sort_key("?!") == ""


def test_a_title_key_ignores_case_punctuation_and_spacing():
    assert title_key("Attention Is All You Need!") == "attention is all you need"
    assert title_key("attention  is all-you need") == "attention is all you need"
    assert title_key("ＡＢＣ") == "abc"  # full-width letters, as NFKC reads them


def test_an_abstract_fingerprint_ignores_case_and_spacing():
    assert abstract_fingerprint("We  study\nGraphs.") == abstract_fingerprint("we study graphs.")
    assert abstract_fingerprint("We study graphs.") != abstract_fingerprint("We study trees.")
    assert abstract_fingerprint("We study graphs.") != ""
    assert abstract_fingerprint(" \n ") == ""  # no abstract: nothing to match on


# --- Tags and areas ------------------------------------------------------------------------


def test_a_tag_search_key_drops_case_and_latin_accents():
    assert tag_search_key("Schrödinger  Bridge") == tag_search_key("schrodinger bridge")
    assert tag_search_key("Schrödinger Bridge") == "schrodinger bridge"


def test_tag_slugs_keep_letters_of_every_script_and_are_bounded():
    assert tag_slug("Reinforcement Learning") == "reinforcement-learning"
    assert tag_slug("Ünal Zoë") == "ünal-zoë"
    assert len(tag_slug("word " * 40)) == 80


def test_a_tag_of_no_sluggable_character_gets_a_slug_of_its_own():
    rocket, smile = tag_slug("🚀"), tag_slug("😀")
    assert re.fullmatch(r"tag-[0-9a-f]{12}", rocket)
    assert rocket != smile  # emoji-only names do not collide on one slug
    assert tag_slug("🚀 ") == rocket  # the same tag, the same slug


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("deep_learning_architectures", "Deep learning architectures"),
        ("applications to computer  vision, audio", "Applications to computer vision, audio"),
        ("deep_learning", "Deep learning"),
        ("robotics", "robotics"),  # one word: as it is
        ("cs.LG", "cs.LG"),
        ("Computer_Vision", "Computer_Vision"),  # a capital letter: a curator's name, as written
    ],
)
def test_area_labels(name, label):
    assert area_label(name) == label


# --- OpenReview identifiers ----------------------------------------------------------------


def test_forum_ids_are_short_url_safe_tokens():
    assert is_forum_id("aBc_1-2")
    assert is_forum_id("x" * MAX_FORUM_ID)
    assert not is_forum_id("x" * (MAX_FORUM_ID + 1))
    assert not is_forum_id("abc def")


def test_openreview_profile_ids_are_kept_and_email_addresses_are_not():
    assert openreview_profile_id(" ~Zoë_Ünal2 ") == "~Zoë_Ünal2"
    longest = "~" + "a" * (MAX_OPENREVIEW_ID - 1)
    assert openreview_profile_id(longest) == longest
    assert openreview_profile_id(longest + "a") == ""
    assert openreview_profile_id("jane@example.org") == ""
    assert openreview_profile_id("ICLR.cc/2025/Conference") == ""


# --- Cutting an over-long imported value (papers.importing.cleaning, the tag service) ---------


def test_a_value_that_fits_is_kept_as_it_is():
    assert cut_at_word("Tensor rematerialization", 24) == "Tensor rematerialization"


def test_a_value_is_cut_after_its_last_whole_word_and_marked():
    cut = cut_at_word("Tensor rematerialization; gradient checkpointing", 30)
    assert cut == "Tensor rematerialization;…"
    assert len(cut) <= 30


def test_a_word_before_the_middle_is_not_where_it_is_cut():
    """Cutting at a space in the first half would throw away most of what fits."""
    cut = cut_at_word("A supercalifragilisticexpialidocious word", 20)
    assert cut == "A supercalifragilis…"
    assert len(cut) == 20


def test_the_cut_is_measured_as_the_caller_measures():
    """Bytes, not characters: an accented name cut to fit a byte limit."""
    name = "Schrödinger équation différentielle"
    cut = cut_at_word(name, 20, utf8_size)
    assert utf8_size(cut) <= 20 and cut.endswith(ELLIPSIS)
    assert cut == "Schrödinger…"


def test_a_measure_that_lengthens_the_text_cuts_further():
    # Each character counts twice: 10 characters may stay, the ellipsis among them.
    cut = cut_at_word("abcdefghijklmnopqrstuvwxyz", 20, lambda text: 2 * len(text))
    assert cut == "abcdefghi…"


def test_a_limit_too_small_for_anything_gives_nothing():
    assert cut_at_word("abc", 1) == ""
    assert cut_at_word("abc", 2) == "a…"


def test_a_space_exactly_halfway_is_still_a_word_boundary():
    assert cut_at_word("abcdefghij klmnopqrstuvwxyz", 21) == "abcdefghij…"


def test_spaces_before_the_cut_are_not_kept_before_the_ellipsis():
    assert cut_at_word("abcdefghij   klmnopqrstuvwxyz", 16) == "abcdefghij…"


def test_a_cut_one_unit_over_the_limit_is_cut_again():
    # "é" counts two: the first cut measures one over the limit; one more character goes.
    def measure(text: str) -> int:
        return len(text) + text.count("é")

    cut = cut_at_word("aaaaaaaaaé bbb", 11, measure)
    assert cut == "aaaaaaaaa…" and measure(cut) <= 11
