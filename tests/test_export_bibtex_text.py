"""BibTeX names split by BibTeX's own rules (bibtexparser's splitter), not a list of particles
of ours; titles with their inline math kept as math."""

from __future__ import annotations

import bibtexparser
import pytest

from annotations.exports import bibtex_for_items, bibtex_name, bibtex_title
from annotations.selectors import list_items_for_export
from papers.importing import bibtex
from tests.factories import make_paper, make_reading_list, make_user


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


@pytest.mark.django_db
def test_titles_keep_their_math_as_math_and_their_text_intact():
    titles = [
        r"$\alpha$TC-VAE: Über 100% & {braces}",
        r"$\infty$-Diff and $\mathcal{O}(n^2)$ costs",
        r"An unbalanced $\mathcal{O$ stays text",
    ]
    reading_list = make_reading_list(make_user(), papers=[make_paper(t) for t in titles])
    exported = bibtex_for_items(list_items_for_export(reading_list))

    raw = [
        entry.fields_dict["title"].value for entry in bibtexparser.parse_string(exported).entries
    ]
    # Math as math, braced against case changes, and so is each word with a capital.
    assert raw[0].startswith(r"{$\alpha$}{TC-VAE:} {Über}")
    assert r"{$\mathcal{O}(n^2)$}" in raw[1]
    assert r"\$\textbackslash{}mathcal" in raw[2]  # not math: escaped as text
    # Read back as our importer reads BibTeX (LaTeX decoded, math verbatim): the same titles.
    assert [record.title for record in bibtex.read(exported, "export.bib")] == titles


HOSTILE_MATH = [
    r"$\input{/etc/passwd}$",
    r"$\immediate\write18{rm -rf ~}$",
    r"$\def\x{1}\x$",
    r"$\catcode`\@=11$",
    r"$\csname input\endcsname{/etc/passwd}$",
    r"$\openout1=evil.tex$",
    # ^^5c is TeX's own spelling of a backslash: "\input" without a backslash in the text.
    r"$^^5cinput{/etc/passwd}$",
]


@pytest.mark.parametrize("title", HOSTILE_MATH)
def test_math_with_commands_that_do_more_than_typeset_is_exported_as_text(title):
    exported = bibtex_title(title)

    assert "{$" not in exported  # not kept as math
    assert exported.startswith(r"\$")  # the dollar itself escaped: LaTeX prints it
    # Read back, the title is the same text: nothing lost, nothing run.
    entry = f"@inproceedings{{k,\n  title = {{{exported}}},\n  year = {{2024}}\n}}\n"
    assert [record.title for record in bibtex.read(entry, "export.bib")] == [title]


def test_math_that_only_typesets_stays_math():
    title = r"$\mathbb{E}_{x}\left[\sqrt{\frac{\alpha}{\beta}}\right] \leq \epsilon$-bounds"

    assert bibtex_title(title).startswith("{$" + title[1 : title.index("$-")] + "$}")


def test_an_escaped_dollar_is_text_and_the_math_after_it_stays_math():
    # The page shows "Costs $5 and O(log n) time"; the export once took "$5 and $" for math.
    title = r"Costs \$5 and $O(\log n)$ time"
    exported = bibtex_title(title)

    assert exported == r"Costs \textbackslash{}\$5 and {$O(\log n)$} time"
    entry = f"@inproceedings{{k,\n  title = {{{exported}}},\n  year = {{2024}}\n}}\n"
    assert [record.title for record in bibtex.read(entry, "export.bib")] == [title]
