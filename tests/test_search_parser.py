"""The search box's language: what parse_query makes of what members type."""

from __future__ import annotations

import pytest

from papers.search.query import (
    MAX_CLAUSES,
    MAX_PHRASE_WORDS,
    MAX_QUERY_CHARS,
    Clause,
    excludes_only,
    parse_query,
    parse_typed_words,
)

# Text that must never reach an engine as syntax: no results, never an error.
ODD_QUERIES = [
    "",
    "   ",
    "the and of",
    '"',
    '""',
    '"unmatched quote',
    "*",
    "**",
    "(",
    ")",
    "( )",
    "NEAR",
    "NEAR(zebra quokka)",
    "AND",
    "OR",
    "NOT",
    "-",
    "--",
    "-graph",
    ":",
    "title:",
    "abstract:zebra",
    "^",
    "^zebra",
    "{title}: zebra",
    "'; DROP TABLE papers_paper; --",
    "😀🚀",
    "日本語の論文",
    "x" * 1000,
    "a\x00b",
    "\x00",
    "\\",
    "%_%",
]


def test_bare_words_are_anded_in_one_group():
    assert parse_query("graph Networks") == ((Clause(("graph",)), Clause(("networks",))),)


def test_or_splits_groups_and_binds_looser_than_and():
    assert parse_query("a graph b or robot") == (
        (Clause(("graph",)), Clause(("b",))),
        (Clause(("robot",)),),
    )


def test_quotes_make_a_phrase_and_minus_excludes():
    assert parse_query('"message passing" -graph') == (
        (Clause(("message", "passing")), Clause(("graph",), negated=True)),
    )


def test_a_hyphenated_compound_is_an_exact_phrase():
    assert parse_query("in-context learning -out-of-distribution") == (
        (
            Clause(("in", "context"), exact=True),
            Clause(("learning",)),
            Clause(("out", "of", "distribution"), negated=True, exact=True),
        ),
    )
    assert parse_query('"in context"') == ((Clause(("in", "context")),),)  # quoted: not exact


def test_stop_words_and_punctuation_leave_nothing_to_search():
    assert parse_query('the and "of" * ( ) : ^ -') == ()


def test_upper_case_not_excludes_and_bars_are_or():
    assert parse_query('graph NOT robot AND NOT "sparse attention"') == (
        (
            Clause(("graph",)),
            Clause(("robot",), negated=True),
            Clause(("sparse", "attention"), negated=True),
        ),
    )
    assert parse_query("graph not robot") == ((Clause(("graph",)), Clause(("robot",))),)
    assert parse_query("graph || robot | vision") == parse_query("graph or robot or vision")
    assert parse_query("NOT") == ()
    assert parse_query("graph NOT") == ((Clause(("graph",)),),)


def test_a_trailing_star_marks_a_prefix():
    assert parse_query("diff* models") == ((Clause(("diff",), prefix=True), Clause(("models",))),)
    # Too short, a stop word, excluded, or inside quotes: the word as it is.
    assert parse_query('d* the* -diff* "diff*"') == (
        (Clause(("d",)), Clause(("diff",), negated=True), Clause(("diff",))),
    )


def test_a_field_name_before_a_colon_is_left_out():
    assert parse_query("title:diffusion Author:finn") == parse_query("diffusion finn")
    assert parse_query('-abstract:"sparse attention" graph') == parse_query(
        '-"sparse attention" graph'
    )
    assert parse_query("title:diff*") == ((Clause(("diff",), prefix=True),),)
    assert parse_query("year:2024") == ((Clause(("year", "2024")),),)  # not a field we name


def test_a_group_of_only_exclusions_is_dropped():
    assert parse_query("graph or -robot") == ((Clause(("graph",)),),)


def test_a_quoted_phrase_keeps_its_first_ten_words():
    phrase = " ".join(f"w{n}" for n in range(40))
    [[clause]] = parse_query(f'"{phrase}"')
    assert clause.words == tuple(f"w{n}" for n in range(MAX_PHRASE_WORDS))


def test_hostile_text_is_bounded_and_never_raises():
    text = '"' * 3 + "a:b ^c title:x (" * 2000
    parsed = parse_query(text)
    assert sum(len(group) for group in parsed) <= 32
    assert all(len(clause.words) <= MAX_PHRASE_WORDS for group in parsed for clause in group)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-diffusion", True),
        ('-"sparse attention" -robots', True),
        ("-diffusion or -graph", True),
        ("diffusion -graph", False),
        ("the of and", False),
        ("-the", False),  # excluding only a common word: nothing to say about exclusions
        ("-", False),
        ("", False),
        ("self-supervised", False),
        ("NOT diffusion", True),
        ("NOT the", False),
    ],
)
def test_excludes_only(text, expected):
    assert excludes_only(text) is expected


def test_nothing_typed_is_nothing_to_search():
    assert parse_query("") == ()


def test_a_lone_minus_is_punctuation_not_an_exclusion():
    assert parse_query("diffusion - graph") == parse_query("diffusion graph")
    assert parse_query("graph -") == parse_query("graph")
    assert parse_query("graph -x") == ((Clause(("graph",)), Clause(("x",), negated=True)),)


def test_an_unclosed_quote_runs_to_the_end_and_keeps_every_letter():
    assert parse_query('graph "sparse attention') == (
        (Clause(("graph",)), Clause(("sparse", "attention"))),
    )


def test_each_pair_of_quotes_makes_its_own_phrase():
    assert parse_query('"message passing" graph "sparse attention"') == (
        (Clause(("message", "passing")), Clause(("graph",)), Clause(("sparse", "attention"))),
    )
    # A closing quote ends the phrase with or without a space after it.
    assert parse_query('"sparse attention"graph') == parse_query('"sparse attention" graph')
    assert parse_query('"sparse attention"-graph') == parse_query('"sparse attention" -graph')
    # An empty pair of quotes is nothing; what follows reads as usual.
    assert parse_query('"" -graph diffusion') == parse_query("-graph diffusion")


def test_a_nul_character_separates_words():
    assert parse_query("graph\x00robot") == parse_query("graph robot")


def test_only_the_first_colon_names_a_field():
    assert parse_query("title:sim:real") == parse_query("sim:real")


def test_a_query_keeps_its_first_clauses_and_characters_only():
    words = [f"w{n}" for n in range(MAX_CLAUSES + 8)]
    [group] = parse_query(" ".join(words))
    assert [clause.words[0] for clause in group] == words[:MAX_CLAUSES]
    padded = "graph".ljust(MAX_QUERY_CHARS) + "robot"
    assert parse_query(padded) == parse_query("graph")


def test_an_open_quote_or_phrase_marks_its_last_word_while_typing():
    def marked(text):
        return [c.prefix for g in parse_query(text, prefix_last=True) for c in g]

    assert marked('graph "score mo') == [False, True]  # the quote is still open
    assert marked('graph "score mo"') == [False, False]  # closed: a whole word
    assert marked("graph mo.") == [False, False]
    # A phrase past MAX_PHRASE_WORDS lost its last words: none of its words is the one typed.
    long_phrase = " ".join(f"w{n}" for n in range(MAX_PHRASE_WORDS + 2))
    assert marked(f'"{long_phrase}') == [False]
    assert marked(f'"{long_phrase[: -len(" w10 w11")]}') == [True]


def test_parser_marks_only_an_open_last_word():
    def marked(text):
        return [c.prefix for g in parse_query(text, prefix_last=True) for c in g]

    assert parse_query("graph mo", prefix_last=True) == (
        (Clause(("graph",)), Clause(("mo",), prefix=True)),
    )
    assert marked("mo") == [True]
    assert marked("m") == [False]
    assert marked("mo ") == [False]
    assert marked("mo.") == [False]
    assert marked("graph -mo") == [False, False]
    assert marked("graph th") == [False, True]
    assert marked("graph the") == [False]  # a stop word is dropped, as when submitted
    assert parse_query("mo") == ((Clause(("mo",)),),)  # without the flag: a whole word


def test_typed_words_are_plain_words_with_the_last_one_open():
    # For the suggestion boxes: what someone remembers of a title or a name.
    assert parse_typed_words("diffusion transf") == Clause(("diffusion", "transf"), prefix=True)
    assert parse_typed_words("diffusion transf ") == Clause(("diffusion", "transf"))
    # Search syntax is only punctuation and words here: a title can be typed as written.
    assert parse_typed_words('-"Learning or not" (') == Clause(("learning", "or", "not"))
    assert parse_typed_words("the of") is None
    assert parse_typed_words('" ( * : AND') is None  # "and" is a stop word
    assert parse_typed_words("a\x00b") == Clause(("a", "b"))
    assert parse_typed_words("") is None
    assert parse_typed_words("graph tr") == Clause(("graph", "tr"), prefix=True)
    assert parse_typed_words("graph of transf") == Clause(("graph", "of", "transf"), prefix=True)
    assert parse_typed_words("diffusion t") == Clause(("diffusion", "t"))  # too short to expand
    assert parse_typed_words("diffusion and") == Clause(("diffusion", "and"))  # a stop word
    assert parse_typed_words("graph transf.") == Clause(("graph", "transf"))  # closed
    many = " ".join(f"w{n}" for n in range(MAX_PHRASE_WORDS + 2))
    assert parse_typed_words(many) == Clause(tuple(many.split()[:MAX_PHRASE_WORDS]))
