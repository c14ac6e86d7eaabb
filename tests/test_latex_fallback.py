r"""Issue 43, finding 8: one author name never stops a fetch or an import. pylatexenc raises on
some macros (IndexError for `\href{a}{b}`, KeyError for `\sqrt` or `\textcolor{red}` without
their arguments, ...); each value is converted on its own and kept as written when the
converter fails on it (papers.importing.cleaning.converted), noted like the other cleanings.
Outside services are replayed by respx; nothing reaches the internet."""

from __future__ import annotations

import io
import json
import re

import httpx
import pytest
import respx
from django.core.management import call_command
from django.urls import reverse

from bench.standins import VENUE, page, v2_note
from papers.importing.cleaning import converted
from papers.importing.latex_text import author_name_as_text, latex_to_text
from papers.importing.records import PaperRecord, validate_record
from papers.models import Author, Feed, Paper
from papers.sources import single
from tests.arxiv_feed import atom_entry, feed

HOSTILE_NAME = r"\href{javascript:alert(1)}{z}"
# Names pylatexenc 2.11 raises on, each alone and inside a real name.
FAILING_NAMES = [
    HOSTILE_NAME,
    r"Jane \href{a}{b} Doe",
    r"\verb",
    r"Jane \verb",
    r"\textcolor{red}",
    r"\'\textcolor{red}{x}",
    r"\sqrt",
    r"\'\sqrt{2}",
    r"\footnote",
    r"\'\footnote{x}",
    r"\'\href{a}{b}",
]
# The same macros with their arguments, which the converter reads (the positive control).
READ_NAMES = [r"\verb|x|", r"\textcolor{red}{x}", r"\sqrt{2}", r"\footnote{x}", r"Erd\H{o}s"]


def record(**values) -> PaperRecord:
    fields = {
        "title": "A title",
        "forum_id": "",
        "forum_url": "",
        "pdf_url": "",
        "authors": ["Ann One"],
        "tags": [],
        "abstract": "An abstract.",
        "source": "test.jsonl",
        "line": 3,
        **values,
    }
    return PaperRecord(**fields)


@pytest.mark.parametrize("name", FAILING_NAMES)
def test_the_converter_fails_on_these_names(name):
    """What the fallback is for: pylatexenc itself raises (not our nesting limit)."""
    with pytest.raises((IndexError, KeyError, AttributeError)):
        author_name_as_text(name)


@pytest.mark.parametrize("name", FAILING_NAMES)
def test_a_name_the_converter_fails_on_is_kept_as_written_and_noted(name):
    kept = validate_record(record(authors=[name, "Bo Two"]))
    assert kept.authors == [" ".join(name.split()), "Bo Two"]
    assert len(kept.cleaned) == 1
    assert kept.cleaned[0].startswith("author name ")
    assert "kept as written, its LaTeX could not be converted" in kept.cleaned[0]


@pytest.mark.parametrize("name", READ_NAMES)
def test_a_name_the_converter_reads_is_converted_without_a_note(name):
    kept = validate_record(record(authors=[name]))
    assert kept.authors == [author_name_as_text(name)]
    assert kept.cleaned == []


def test_a_fallback_loses_its_control_characters_and_is_noted_once():
    notes: list[str] = []
    value = "\\href{a}{b}\x01 and\x9f more"
    for _ in range(2):  # a fetched record is validated twice, by the fetch and the import
        assert converted(value, latex_to_text, "title", notes) == "\\href{a}{b}  and  more"
    assert notes == [
        "title '\\\\href{a}{b}\\x01 and\\x9f more': kept as written, its LaTeX could not be "
        "converted (IndexError)"
    ]


def test_titles_and_abstracts_fall_back_each_on_their_own():
    def failing(value: str) -> str:
        if "\\href" in value:
            raise IndexError("list index out of range")
        return value.upper()

    notes: list[str] = []
    assert converted("\\href{a}{b} title", failing, "title", notes) == "\\href{a}{b} title"
    assert converted("an abstract", failing, "abstract", notes) == "AN ABSTRACT"
    assert len(notes) == 1 and notes[0].startswith("title ")


# --- import_papers: no traceback, every record imported, the fallback reported -------------


def import_command(path) -> str:
    out = io.StringIO()
    call_command("import_papers", str(path), stdout=out, stderr=io.StringIO())
    return out.getvalue()


BIBTEX = r"""@article{hostile,
  title = {Graphs \textcolor{red} and trees},
  author = {\href{javascript:alert(1)}{z} and Jane Doe \sqrt and Erd\H{o}s, Paul},
  abstract = {We study things \footnote},
  doi = {10.1234/hostile},
}

@article{plain,
  title = {A plain paper},
  author = {Ann One},
  abstract = {Nothing special.},
  doi = {10.1234/plain},
}
"""


@pytest.mark.django_db
def test_import_papers_of_a_bibtex_file_with_such_names_imports_every_record(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(BIBTEX)
    output = import_command(path)
    assert "Total: 2 created, 0 updated, 0 unchanged, 0 conflicts; 4 values cleaned" in output
    for label, value in [
        ("title", r"Graphs \textcolor{red} and trees"),
        ("author name", HOSTILE_NAME),
        ("author name", r"Jane Doe \sqrt"),
        ("abstract", r"We study things \footnote"),
    ]:
        note = f"{label} {value!r}: kept as written"
        assert f"{path}:1: {note}" in output, note
    hostile = Paper.objects.get(doi="10.1234/hostile")
    assert hostile.title == "Graphs \\textcolor{red} and trees"
    assert hostile.abstract == "We study things \\footnote"
    assert hostile.author_names == f"{HOSTILE_NAME}, Jane Doe \\sqrt, Paul Erdős"
    assert Paper.objects.get(doi="10.1234/plain").author_names == "Ann One"


@pytest.mark.django_db
def test_import_papers_of_a_jsonl_file_with_such_names_imports_every_record(tmp_path):
    path = tmp_path / "papers.jsonl"
    lines = [
        {"title": "First", "abstract": "One.", "authors": [HOSTILE_NAME, "Ann One"]},
        {"title": "Second", "abstract": "Two.", "authors": [r"Jane \verb", r"Erd\H{o}s"]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    output = import_command(path)
    assert "Total: 2 created, 0 updated, 0 unchanged, 0 conflicts; 2 values cleaned" in output
    assert f"{path}:2: author name 'Jane \\\\verb': kept as written" in output
    assert Paper.objects.get(title="Second").author_names == "Jane \\verb, Erdős"
    assert Author.objects.filter(name=HOSTILE_NAME).exists()


# --- fetches: the rest of the run completes, the page shows the name as text ---------------

ARXIV = "https://arxiv.test/api/query"


def no_javascript_link(html: str) -> None:
    hrefs = re.findall(r"""\b(?:href|src|action)\s*=\s*["']?\s*([^"'\s>]*)""", html, re.I)
    assert hrefs, "the page has links"
    assert not [href for href in hrefs if "javascript" in href.lower()], hrefs


@pytest.mark.django_db
@respx.mock
def test_fetch_arxiv_imports_both_records_and_the_page_shows_the_name_as_text(
    client, settings, capsys
):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    entries = [
        atom_entry("2404.00001", title="Hostile author", authors=(HOSTILE_NAME, "Ann One")),
        atom_entry("2404.00002", title="Plain authors", authors=("Bo Two",)),
    ]
    respx.get(ARXIV).mock(return_value=httpx.Response(200, text=feed(entries, total=2, start=0)))
    call_command("fetch_arxiv", "abs:hostile")  # raises (exit 1) if a record stops the run
    out = capsys.readouterr().out
    # Noted once, though the fetch and the import each validate the record.
    assert "Total: 2 created, 0 updated, 0 unchanged, 0 conflicts; 1 value cleaned" in out
    assert f"author name {HOSTILE_NAME!r}: kept as written" in out
    hostile = Paper.objects.get(arxiv_id="2404.00001")
    assert hostile.author_names == f"{HOSTILE_NAME}, Ann One"
    assert Paper.objects.get(arxiv_id="2404.00002").author_names == "Bo Two"

    html = client.get(reverse("papers:detail", args=[hostile.pk])).content.decode()
    assert "\\href{javascript:alert(1)}{z}" in html  # the name, as text
    no_javascript_link(html)
    author = Author.objects.get(name=HOSTILE_NAME)
    no_javascript_link(client.get(author.get_absolute_url()).content.decode())


@pytest.mark.django_db
@respx.mock
def test_an_arxiv_feed_with_such_a_name_succeeds_with_both_records(settings):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    entries = [
        atom_entry("2404.00001", title="Hostile author", authors=(HOSTILE_NAME,)),
        atom_entry("2404.00002", title="Plain authors", authors=("Bo Two",)),
    ]
    respx.get(ARXIV).mock(return_value=httpx.Response(200, text=feed(entries, total=2, start=0)))
    lab_feed = Feed.objects.create(kind=Feed.Kind.ARXIV, target="cat:cs.LG")
    call_command("fetch_feeds", stdout=io.StringIO())
    lab_feed.refresh_from_db()
    assert (lab_feed.last_status, lab_feed.last_created) == (Feed.Status.OK, 2)
    assert Paper.objects.count() == 2


@pytest.mark.django_db
@respx.mock
def test_fetch_openreview_imports_both_notes(settings):
    base = "https://api2.openreview.net"
    settings.OPENREVIEW_API_URL = base
    notes = [
        v2_note("Hostile_01", "Hostile author", number=1, authors=[HOSTILE_NAME, "Ann One"]),
        v2_note("Plain_0002", "Plain authors", number=2),
    ]
    queries = {("content.venueid", VENUE): notes}
    respx.get(f"{base}/notes").mock(
        side_effect=lambda request: httpx.Response(200, json=page(queries, request.url.params))
    )
    out = io.StringIO()
    call_command("fetch_openreview", VENUE, stdout=out, stderr=io.StringIO())
    assert "Total: 2 created" in out.getvalue()
    assert "kept as written, its LaTeX could not be converted (IndexError)" in out.getvalue()
    assert Paper.objects.get(forum_id="Hostile_01").author_names == f"{HOSTILE_NAME}, Ann One"
    assert Paper.objects.filter(forum_id="Plain_0002").exists()


@pytest.mark.django_db
@respx.mock
def test_a_member_adds_a_paper_whose_author_the_converter_fails_on(settings, user):
    settings.ARXIV_API_URL = ARXIV
    entry = atom_entry("2404.00003", title="Looked up", authors=(HOSTILE_NAME,))
    respx.get(ARXIV).mock(return_value=httpx.Response(200, text=feed([entry], total=1)))
    paper = single.paper_for_identifier("2404.00003", user=user)
    assert paper is not None and paper.author_names == HOSTILE_NAME


def test_one_values_title_never_shows_in_anothers_maketitle():
    """Found by tests/test_latex_fuzz.py: pylatexenc's one decoder keeps the last \\title,
    \\author and \\date it read and prints them for \\maketitle, with today's date."""
    latex_to_text(r"\title{A private title} \author{Someone} text")
    name = validate_record(record(authors=[r"Jane \maketitle Doe"])).authors[0]
    assert name == "Jane Doe"
