r"""Issue 43, finding 8: the import's LaTeX conversion over random LaTeX. Values are drawn from a
seeded random source (no hypothesis here): macros from the converters' own tables (pylatexenc's,
papers.latex's) and made-up names, braces balanced and not, `$`, `\\`, `%`, `&`, `~`, accents,
environments, control characters and other Unicode. No exception escapes the per-value
conversion (cleaning.converted), and a record made of such values is validated or refused
(ImportFailed, which an import reports as file:line), never anything else, with every value it
keeps within its limit."""

from __future__ import annotations

import random

from pylatexenc import latex2text, latexwalker

from papers import latex
from papers.importing.cleaning import converted
from papers.importing.latex_text import NestedTooDeep, author_name_as_text, latex_to_text
from papers.importing.records import ImportFailed, PaperRecord, validate_record
from papers.text import MAX_ABSTRACT, MAX_AUTHOR_NAME, MAX_TITLE

CASES = 3000
SEED = 43


def _macro_names() -> list[str]:
    names = {
        spec.macroname for spec in latex2text.get_default_latex_context_db().iter_macro_specs()
    }
    names |= {
        spec.macroname for spec in latexwalker.get_default_latex_context_db().iter_macro_specs()
    }
    names |= set(latex._WRAPPERS) | set(latex._SWITCHES) | set(latex._REPLACEMENTS)
    names |= set(latex._LETTERS) | set(latex._ACCENTS) | set(latex.TYPESETTING_MATH_COMMANDS)
    names |= {"href", "verb", "textcolor", "sqrt", "footnote", "url", "cite", "frac", "begin"}
    return sorted(name for name in names if name)


MACROS = _macro_names()
# The macros pylatexenc prints with their arguments (a %-format or a function): a value where
# they lack them is where it raises, so half the macros drawn are these.
WITH_ARGUMENTS = sorted(
    {
        spec.macroname
        for spec in latex2text.get_default_latex_context_db().iter_macro_specs()
        if callable(spec.simplify_repl)
        or (isinstance(spec.simplify_repl, str) and "%" in spec.simplify_repl)
    }
    | {"href", "verb", "textcolor", "sqrt", "footnote"}
)
SPECIALS = [
    "{", "}", "{}", "$", "$$", "\\\\", "%", "&", "~", "#", "^", "_", "\\(", "\\)", "\\[", "\\]",
    "\\{", "\\}", "\\%", "\\$", "\\", "``", "''", "--", " ", "  ", "\n", "\n\n", "\t",
    "\\begin{itemize}", "\\end{itemize}", "\\begin{", "\\end{", "\\verb|x|", "\\verb+",
    "\\item", "[", "]", "<b>", "&amp;", "\\'", '\\"', "\\H{o}", "{\\o}",
]  # fmt: skip
WORDS = ["Jane", "Doe", "Erdős", "van", "der", "x", "2", "alert(1)", "javascript:", "a.b"]
UNICODE = [
    "é", "ß", "李", "雷", "\u0301", "\u200b", "\u200f", "\u202e", "\u2066", "\ufeff", "\x01",
    "\x1f", "\x7f", "\x85", "\x9f", "\u00a0", "\u2028", "😀", "\ufdfa", "\u3164", "Ａ",
]  # fmt: skip


def random_latex(rng: random.Random, pieces: int) -> str:
    parts = []
    for _ in range(pieces):
        kind = rng.random()
        if kind < 0.35:
            parts.append(f"\\{rng.choice(MACROS if rng.random() < 0.5 else WITH_ARGUMENTS)}")
            # Arguments, as many as it takes or not, closed or not; or a space, which ends the
            # piece the converter is given.
            for _ in range(rng.randint(0, 3)):
                parts.append("{" + rng.choice(WORDS) + ("}" if rng.random() < 0.8 else ""))
            if rng.random() < 0.3:
                parts.append(" ")
        elif kind < 0.45:
            parts.append("\\" + "".join(rng.choices("abcdefghijklmnopqrstuvwxyzAZ@", k=4)))
        elif kind < 0.7:
            parts.append(rng.choice(SPECIALS))
        elif kind < 0.85:
            parts.append(rng.choice(WORDS))
        else:
            parts.append(rng.choice(UNICODE))
    return "".join(parts)


def values(count: int, seed: int, pieces: tuple[int, int]) -> list[str]:
    rng = random.Random(seed)
    return [random_latex(rng, rng.randint(*pieces)) for _ in range(count)]


def records(count: int, seed: int) -> list[tuple[str, str, str]]:
    """(name, title, abstract) triples; one in fifty titles and abstracts past their limit."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        long = rng.random() < 0.02
        result.append(
            (
                random_latex(rng, rng.randint(1, 6)),
                random_latex(rng, rng.randint(150, 300) if long else rng.randint(1, 12)),
                random_latex(rng, rng.randint(2000, 3000) if long else rng.randint(1, 30)),
            )
        )
    return result


def record(name: str, title: str, abstract: str) -> PaperRecord:
    return PaperRecord(
        title=title,
        forum_id="",
        forum_url="",
        pdf_url="",
        authors=[name, "Ann One"],
        tags=[],
        abstract=abstract,
        source="fuzz.jsonl",
        line=1,
        doi="10.1234/fuzz",
    )


def test_the_macros_of_the_issue_are_among_the_fuzzed_ones():
    assert {"href", "verb", "textcolor", "sqrt", "footnote"} <= set(MACROS)
    assert len(MACROS) > 500  # the converters' tables, not a handful


def test_no_exception_escapes_the_per_value_conversion():
    fell_back = 0
    for number, value in enumerate(values(CASES, SEED, (1, 8))):
        notes: list[str] = []
        name = converted(value, author_name_as_text, "author name", notes)
        fell_back += bool(notes)
        title = converted(value, latex.accents_as_unicode, "title", notes)
        for text in (name, title):
            # A str, and no longer than the value and a few characters a macro may print more
            # (\cite{} as "<cit.>"): the limits of the record's fields hold after cleaning.
            assert isinstance(text, str) and len(text) <= 2 * len(value) + 8, (value, text)
        if number % 5 == 0:  # the BibTeX reader's conversion of every field (slower)
            try:
                text = converted(value, latex_to_text, "title", notes)
            except NestedTooDeep:  # our own limit: the file is refused at the field's line
                continue
            assert isinstance(text, str) and len(text) <= 2 * len(value) + 8, (value, text)
    # The fuzz reaches the fallback (pylatexenc raising). It takes 2 s on an idle machine.
    assert fell_back > 50, fell_back  # 85 of the 3,000


def test_a_record_of_random_latex_is_validated_or_refused_within_its_limits():
    refused = 0
    for name, title, abstract in records(CASES // 3, SEED + 1):
        try:
            kept = validate_record(record(name, title, abstract))
        except ImportFailed as error:  # reported with the file and line, never a traceback
            assert (error.file, error.line) == ("fuzz.jsonl", 1)
            refused += 1
            continue
        assert isinstance(kept.title, str) and len(kept.title) <= MAX_TITLE
        assert isinstance(kept.abstract, str) and len(kept.abstract) <= MAX_ABSTRACT
        assert all(isinstance(n, str) and len(n) <= MAX_AUTHOR_NAME for n in kept.authors)
        assert all(isinstance(note, str) for note in kept.cleaned)
    assert refused < CASES // 6  # most records import
