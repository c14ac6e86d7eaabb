"""The search box's language: what parse_query makes of what members type."""

from __future__ import annotations

import pytest

from papers.search.query import MAX_PHRASE_WORDS, Clause, excludes_only, parse_query

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
