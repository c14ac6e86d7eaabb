"""Hostile text at the catalogue's limits renders in bounded time on every page showing it.

The LaTeX pass used to be quadratic (80,000 unclosed `\\(` took 44 s) and SQLite's snippets
too. These tests render each hostile abstract at MAX_ABSTRACT through the real pages on the
database under test. The time bound is a guard against a quadratic regression (which takes
seconds at this size), not a benchmark: `make hostile` measures the pages through gunicorn.
"""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from papers.text import MAX_ABSTRACT, MAX_TITLE
from tests.factories import make_paper


def at_limit(unit: str) -> str:
    return (unit * (MAX_ABSTRACT // len(unit) + 1))[:MAX_ABSTRACT]


HOSTILE_ABSTRACTS = {
    "unclosed inline math": at_limit("\\("),
    "unclosed display math": at_limit("\\["),
    "nested commands": at_limit("\\textit{"),
    "closed nesting": "\\emph{" * 1400 + "x" + "}" * 1400,
    "dollars": at_limit("$"),
    "braces": at_limit("{"),
    "escaped dollars": at_limit("$a\\$"),
    "citations": at_limit("\\cite{"),
    "one word repeated": at_limit("x "),
    "markup": at_limit("<script>alert(1)</script>"),
}
# A guard against runaway work (the pages take about 0.1-0.3 s here), with room for a loaded
# CI machine.
GUARD_SECONDS = 3.0


@pytest.mark.parametrize("kind", sorted(HOSTILE_ABSTRACTS))
def test_paper_page_with_a_hostile_abstract_at_the_limit(client, db, kind):
    abstract = HOSTILE_ABSTRACTS[kind]
    assert len(abstract) <= MAX_ABSTRACT
    paper = make_paper("$\\alpha$ " * (MAX_TITLE // 9), abstract=abstract)
    started = time.perf_counter()
    response = client.get(paper.get_absolute_url())
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert "<script>alert" not in response.content.decode()
    assert elapsed < GUARD_SECONDS, f"{kind}: {elapsed:.2f} s"


def test_search_results_of_hostile_abstracts_at_the_limit(client, db):
    for _ in range(25):
        make_paper(abstract=HOSTILE_ABSTRACTS["one word repeated"])
    started = time.perf_counter()
    response = client.get(reverse("papers:list"), {"q": "x", "per_page": 25})
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert response.content.decode().count("<mark>x</mark>") >= 25
    assert elapsed < GUARD_SECONDS * 2, f"{elapsed:.2f} s"


def test_a_long_phrase_of_a_repeated_word_against_such_abstracts_stays_bounded(
    client, db, statement_timeout
):
    # PostgreSQL's ts_headline once grew one backend to 24 GB on a 64-word phrase of "x"
    # against such abstracts; the search index's snippets highlight words, not phrases.
    for _ in range(25):
        make_paper(abstract=HOSTILE_ABSTRACTS["one word repeated"])
    query = '"' + " ".join(["x"] * 200) + '"'
    started = time.perf_counter()
    response = client.get(reverse("papers:list"), {"q": query, "per_page": 25})
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert response.context["total"] == 25
    assert "<mark>" in response.content.decode()
    assert elapsed < GUARD_SECONDS * 2, f"{elapsed:.2f} s"
