r"""Exports of any view (issue 12): the list page for its search and facets, an author's and a
tag's papers, a reading list; each as BibTeX, RIS, CSL-JSON and CSV, read in batches and sent
whole with its length.

Every file is read back as a reference manager would (our importer's BibTeX and RIS readers,
which use bibtexparser 2 with LaTeX decoding, a JSON parser, a CSV reader).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import bibtexparser
import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations import export_data
from annotations.models import ReadingListItem, Visibility
from papers.filters import PaperFilter
from papers.importing import bibtex, ris
from papers.models import Author, Authorship, Paper, PaperTag, TagKind
from papers.search import engine
from papers.search.sync import current_searcher
from papers.tags.service import merge_tags
from papers.text import abstract_fingerprint
from papers.venues import venue_from_citation, venue_full_name
from tests.factories import make_note, make_paper, make_reading_list, make_tag, make_user
from tests.query_helpers import outside_cache

pytestmark = pytest.mark.django_db

EXTENSIONS = ["bib", "ris", "json", "csv"]
ICLR_2024 = "International Conference on Learning Representations (ICLR 2024)"


def download(client, url: str, params: dict | None = None) -> str:
    response = client.get(url, params or {})
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    body = response.getvalue()
    assert int(response["Content-Length"]) == len(body)  # a short file is seen to be short
    return body.decode("utf-8-sig")  # a CSV starts with a BOM, for Excel


def titles_in(extension: str, text: str) -> list[str]:
    """The papers' titles, in file order, as a reference manager or spreadsheet reads them."""
    if extension == "bib":
        return [record.title for record in bibtex.read(text, "export.bib")]
    if extension == "ris":
        return [record.title for record in ris.read(text, "export.ris")]
    if extension == "json":
        return [record["title"] for record in json.loads(text)]
    return [row["title"] for row in csv.DictReader(io.StringIO(text))]


def export_url(name: str, extension: str, *args) -> str:
    return reverse(f"annotations:{name}", args=[*args, extension])


# --- The list page: same search, same facets, same order ------------------------------------


@pytest.fixture
def corpus():
    iclr, neurips = ("ICLR 2024", TagKind.VENUE), ("NeurIPS 2023", TagKind.VENUE)
    return {
        "planning": make_paper("Diffusion models for planning", tags=[iclr]),
        "images": make_paper("Diffusion for images", abstract="Pixels by diffusion.", tags=[iclr]),
        "policies": make_paper("Diffusion policies", tags=[neurips]),
        "walking": make_paper("Learning to walk", tags=[iclr]),
    }


def page_titles(client, params: dict) -> list[str]:
    response = client.get(reverse("papers:list"), {**params, "per_page": 100})
    assert response.status_code == 200
    return [paper.title for paper in response.context["papers"]]


@pytest.mark.parametrize("extension", EXTENSIONS)
@pytest.mark.parametrize("sort", ["relevance", "title", "newest"])
def test_list_export_has_exactly_the_pages_papers_in_its_order(client, corpus, extension, sort):
    params = {"q": "diffusion", "venue": make_tag("ICLR 2024").slug, "sort": sort}
    expected = page_titles(client, params)
    assert sorted(expected) == ["Diffusion for images", "Diffusion models for planning"]
    text = download(client, export_url("papers-export", extension), params)
    assert titles_in(extension, text) == expected


def test_list_export_without_parameters_has_every_paper(client, corpus):
    text = download(client, export_url("papers-export", "json"))
    assert titles_in("json", text) == page_titles(client, {})
    assert len(json.loads(text)) == 4


def test_list_export_of_a_search_without_matches_is_a_valid_empty_file(client, corpus):
    assert json.loads(download(client, export_url("papers-export", "json"), {"q": "zzz"})) == []
    assert download(client, export_url("papers-export", "bib"), {"q": "zzz"}) == ""


def test_list_export_ignores_the_page_number(client, corpus):
    params = {"per_page": 10, "page": 3}
    assert len(json.loads(download(client, export_url("papers-export", "json"), params))) == 4


def test_mine_facet_exports_only_the_requesting_members_papers(client, corpus):
    owner, other = make_user("owner"), make_user("other")
    make_reading_list(owner, "Owner's", papers=[corpus["planning"]])
    make_note(owner, corpus["images"], "owner's private note")
    make_reading_list(other, "Other's", papers=[corpus["walking"]])
    client.force_login(other)
    for mine in ("lists", "notes"):
        text = download(client, export_url("papers-export", "csv"), {"mine": mine})
        titles = titles_in("csv", text)
        assert titles == (["Learning to walk"] if mine == "lists" else [])
        assert "planning" not in text and "images" not in text


def test_mine_facet_is_ignored_for_anonymous_visitors(client, corpus):
    make_reading_list(make_user("owner"), "Owner's", papers=[corpus["planning"]])
    text = download(client, export_url("papers-export", "json"), {"mine": "lists"})
    assert len(json.loads(text)) == 4  # as on the page: no "mine" facet without a member


def test_engine_all_ids_is_every_page_in_order_without_a_page_limit(corpus):
    searcher = current_searcher()
    for sort in ("relevance", "title", "newest"):
        query = PaperFilter(QueryDict(f"q=diffusion&sort={sort}")).state.engine_query(page=1)
        pages = [
            engine.search(searcher, replace(query, offset=offset, limit=2)).ids for offset in (0, 2)
        ]
        assert len(pages[0] + pages[1]) == 3
        assert engine.all_ids(searcher, replace(query, offset=2, limit=1)) == pages[0] + pages[1]
    nothing = PaperFilter(QueryDict("q=the+and+of")).state.engine_query(page=1)
    assert engine.all_ids(searcher, nothing) == []


@pytest.mark.parametrize("sort", ["newest", "rating"])
def test_all_ids_breaks_ties_by_id_as_the_pages_do(sort):
    # One import's papers share their creation time, and ratings tie: the export's order
    # (read by the u64 key and the id, not the text key) must still be the pages'.
    papers = [make_paper(f"Tied {n}") for n in range(7)]
    same_time = papers[0].created_at
    for n, paper in enumerate(papers):
        rating = None if n == 6 else 5.0 + n % 2  # two ties and one paper without a rating
        Paper.objects.filter(pk=paper.pk).update(created_at=same_time, mean_rating=rating)
    searcher = current_searcher()  # the index is first built now, from these values
    query = PaperFilter(QueryDict(f"sort={sort}")).state.engine_query(page=1)
    pages = [
        engine.search(searcher, replace(query, offset=offset, limit=3)).ids for offset in (0, 3, 6)
    ]
    in_order = pages[0] + pages[1] + pages[2]
    assert sorted(in_order) == sorted(paper.pk for paper in papers)
    assert engine.all_ids(searcher, query) == in_order


def test_list_page_links_its_exports_with_its_query(client, corpus):
    response = client.get(reverse("papers:list"), {"q": "diffusion", "sort": "title", "page": 1})
    content = response.content.decode()
    for extension in EXTENSIONS:
        url = export_url("papers-export", extension)
        assert f'href="{url}?q=diffusion&amp;sort=title"' in content  # page number dropped


# --- Authors, tags, reading lists ---------------------------------------------------------


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_author_export_has_their_papers_newest_first(client, extension):
    first = make_paper("First paper", authors=["Ada Lovelace"])
    second = make_paper("Second paper", authors=["Alan Turing", "Ada Lovelace"])
    make_paper("Someone else's", authors=["Alan Turing"])
    author = Author.objects.get(name="Ada Lovelace")
    text = download(client, export_url("author-export", extension, author.pk))
    assert titles_in(extension, text) == [second.title, first.title]


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_tag_export_has_its_papers_newest_first(client, extension):
    first = make_paper("First oral", tags=[("Oral", TagKind.TRACK)])
    second = make_paper("Second oral", tags=[("Oral", TagKind.TRACK)])
    make_paper("A poster", tags=[("Poster", TagKind.TRACK)])
    tag = make_tag("Oral", TagKind.TRACK)
    text = download(client, export_url("tag-export", extension, tag.kind, tag.slug))
    assert titles_in(extension, text) == [second.title, first.title]


def test_a_merged_tags_export_link_leads_to_the_kept_tags_export(client):
    make_paper("Plural", tags=[("language models", TagKind.KEYWORD)])
    make_paper("Singular", tags=[("Language model", TagKind.KEYWORD)])
    kept = make_tag("language models", TagKind.KEYWORD)
    merged = make_tag("Language model", TagKind.KEYWORD)
    old_url = export_url("tag-export", "bib", merged.kind, merged.slug)
    merge_tags(target=kept, others=[merged])
    response = client.get(old_url)
    assert response.status_code == 301
    assert response["Location"] == export_url("tag-export", "bib", kept.kind, kept.slug)


def test_unknown_author_tag_or_format_is_a_404(client):
    tag = make_tag("Oral", TagKind.TRACK)
    assert client.get(export_url("author-export", "bib", 999999)).status_code == 404
    assert client.get(export_url("tag-export", "bib", "track", "nope")).status_code == 404
    assert client.get(f"/tags/{tag.kind}/{tag.slug}/export.exe").status_code == 404
    assert client.get("/export/papers.txt").status_code == 404


def test_author_and_tag_pages_link_their_exports(client):
    paper = make_paper("Linked", authors=["Ada Lovelace"], tags=[("Oral", TagKind.TRACK)])
    author, tag = Author.objects.get(), paper.tags.get()
    author_page = client.get(author.get_absolute_url()).content.decode()
    tag_page = client.get(tag.get_absolute_url()).content.decode()
    for extension in EXTENSIONS:
        assert f'href="{export_url("author-export", extension, author.pk)}"' in author_page
        assert f'href="{export_url("tag-export", extension, tag.kind, tag.slug)}"' in tag_page


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_reading_list_export_in_list_order(client, extension):
    owner = make_user("owner")
    papers = [make_paper("Zeta"), make_paper("Alpha"), make_paper("Mu")]
    reading_list = make_reading_list(owner, "Queue", papers=papers)
    client.force_login(owner)
    text = download(client, reverse(_list_export_name(extension), args=[reading_list.pk]))
    assert titles_in(extension, text) == ["Zeta", "Alpha", "Mu"]


def _list_export_name(extension: str) -> str:
    name = {"bib": "bibtex", "ris": "ris", "json": "csl", "csv": "csv"}[extension]
    return f"annotations:list-export-{name}"


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_private_list_export_is_refused_to_others_and_shared_one_allowed(client, extension):
    owner = make_user("owner")
    private = make_reading_list(owner, "Private", papers=[make_paper("Secret paper")])
    shared = make_reading_list(
        owner, "Shared", papers=[make_paper("Open paper")], visibility=Visibility.SHARED
    )
    client.force_login(make_user("stranger"))
    refused = client.get(reverse(_list_export_name(extension), args=[private.pk]))
    assert refused.status_code == 404
    assert b"Secret paper" not in refused.content
    text = download(client, reverse(_list_export_name(extension), args=[shared.pk]))
    assert titles_in(extension, text) == ["Open paper"]


def test_csv_of_a_view_has_no_list_columns_and_stays_formula_safe(client):
    make_paper("=HYPERLINK(1)", authors=["@cmd"], tags=[("Oral", TagKind.TRACK)])
    tag = make_tag("Oral", TagKind.TRACK)
    text = download(client, export_url("tag-export", "csv", tag.kind, tag.slug))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["title", "authors", "venue", "track", "url", "pdf"]
    assert rows[1][:2] == ["'=HYPERLINK(1)", "'@cmd"]


# --- What each entry says -----------------------------------------------------------------

HARD_TITLES = [
    r"$\alpha$-Flows: Über, café & straße at 100% {braced}",
    r"Costs of $\mathcal{O}(n^2)$ for Müller's ß-test",
]


def test_bibtex_of_a_view_reads_back_with_text_intact_and_math_as_math(client):
    for title in HARD_TITLES:
        make_paper(title, authors=["José Núñez"], tags=[("Oral", TagKind.TRACK)])
    tag = make_tag("Oral", TagKind.TRACK)
    text = download(client, export_url("tag-export", "bib", tag.kind, tag.slug))
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    raw = {entry.fields_dict["title"].value for entry in library.entries}
    assert r"{$\alpha$}{-Flows:} {Über,} café \& straße at 100\% \textbraceleft{}braced" in "".join(
        raw
    )
    assert any(r"{$\mathcal{O}(n^2)$}" in value for value in raw)  # math kept as math
    # Read back with LaTeX decoded (math verbatim): the very same titles.
    assert sorted(titles_in("bib", text)) == sorted(HARD_TITLES)


def test_citations_name_the_venue_in_full_and_never_invent_an_author(client):
    paper = make_paper("Authorless", tags=[("ICLR 2024", TagKind.VENUE)])
    tag = paper.tags.get()

    def url(extension: str) -> str:
        return export_url("tag-export", extension, tag.kind, tag.slug)

    bib = download(client, url("bib"))
    [entry] = bibtexparser.parse_string(bib).entries
    assert entry.fields_dict["booktitle"].value == "{" + ICLR_2024 + "}"  # its case kept
    assert "author" not in entry.fields_dict
    assert "Anonymous" not in bib
    ris_text = download(client, url("ris"))
    assert f"T2  - {ICLR_2024}" in ris_text
    [record] = ris.read(ris_text, "export.ris")
    assert record.tags == ["ICLR 2024"] and record.authors == []  # read back as its venue
    [item] = json.loads(download(client, url("json")))
    assert item["container-title"] == ICLR_2024 and item["author"] == []


@pytest.mark.parametrize(
    ("venue", "cited"),
    [
        ("ICLR 2024", ICLR_2024),
        ("NeurIPS 2023", "Advances in Neural Information Processing Systems (NeurIPS 2023)"),
        ("icml", "International Conference on Machine Learning (icml)"),
        ("CVPR2022", "IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR2022)"),
        ("Workshop on Tiny Papers", "Workshop on Tiny Papers"),  # unknown: kept as it is
        ("ICLR 2024 Workshop", "ICLR 2024 Workshop"),
        ("", ""),
    ],
)
def test_venue_full_names(venue, cited):
    assert venue_full_name(venue) == cited
    assert venue_from_citation(cited) == venue  # and a citation reads back as its venue


@pytest.mark.parametrize(
    "cited",
    [
        "Journal of Machine Learning Research",
        "Proceedings of Something (PMLR 2024)",  # not how we name a venue we know
        "International Conference on Machine Learning (ICLR 2024)",  # name and acronym differ
        "(ICLR 2024)",
    ],
)
def test_other_cited_venues_are_kept_as_written(cited):
    assert venue_from_citation(cited) == cited


def test_a_paper_has_the_same_key_in_every_export(client):
    paper = make_paper("Shared attention", authors=["Ada Lovelace"], tags=[("Oral", "track")])
    make_paper("Shared attention", authors=["Ada Lovelace"], tags=[("Oral", "track")])
    owner = make_user("owner")
    reading_list = make_reading_list(owner, "Mine", papers=[paper])
    author, tag = Author.objects.get(), make_tag("Oral", TagKind.TRACK)
    client.force_login(owner)
    expected = f"lovelaceshared-{paper.pk}"  # no year: none is known
    by_author = download(client, export_url("author-export", "bib", author.pk))
    bib_keys = [entry.key for entry in bibtexparser.parse_string(by_author).entries]
    assert expected in bib_keys and len(set(bib_keys)) == 2  # two papers alike, two keys
    by_tag = download(client, export_url("tag-export", "json", tag.kind, tag.slug))
    assert expected in [item["id"] for item in json.loads(by_tag)]
    in_list = download(client, reverse("annotations:list-export-csl", args=[reading_list.pk]))
    assert [item["id"] for item in json.loads(in_list)] == [expected]


# --- Streaming in batches ----------------------------------------------------------------


def make_many_papers(count: int, tag) -> None:
    """`count` papers with two authors and the tag each, in a handful of bulk inserts."""
    papers = Paper.objects.bulk_create(
        Paper(
            title=f"Bulk paper {n}",
            abstract="",
            abstract_fingerprint=abstract_fingerprint(f"bulk {n}"),
            forum_id=f"bulk{n}",
        )
        for n in range(count)
    )
    first, second = Author.objects.bulk_create(
        [
            Author(name="Ada Lovelace", normalized_name="ada lovelace"),
            Author(name="Alan Turing", normalized_name="alan turing"),
        ]
    )
    Authorship.objects.bulk_create(
        Authorship(paper=paper, author=author, position=position)
        for paper in papers
        for position, author in enumerate((first, second))
    )
    PaperTag.objects.bulk_create(PaperTag(paper=paper, tag=tag) for paper in papers)


def batch_queries(queries) -> list[str]:
    """The queries that read a batch's authors: one per batch of papers."""
    return [query["sql"] for query in queries if '"papers_authorship"' in query["sql"]]


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_a_big_export_reads_its_papers_in_batches_not_one_by_one(client, extension, monkeypatch):
    monkeypatch.setattr(export_data, "BATCH_SIZE", 500)
    tag = make_tag("Poster", TagKind.TRACK)
    make_many_papers(1200, tag)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(export_url("tag-export", extension, tag.kind, tag.slug))
    # 1,200 papers in batches of 500: 3 batches of four queries each (papers, their tags,
    # their authorships, the year added of those whose venue gives none), the two authors'
    # names once, besides a few that do not grow with the export (the tag, its ids; the
    # export slots in the cache are left out of the count).
    assert len(batch_queries(queries)) == 3
    assert len(outside_cache(queries)) <= 3 * 4 + 1 + 3
    assert response["X-Export-Entries"] == "1200"
    text = response.getvalue().decode("utf-8-sig")
    titles = titles_in(extension, text)
    assert len(titles) == 1200 and len(set(titles)) == 1200
    if extension == "json":
        assert {tuple(a["family"] for a in item["author"]) for item in json.loads(text)} == {
            ("Lovelace", "Turing")
        }


def test_a_big_reading_list_export_reads_its_items_in_batches(client, monkeypatch):
    monkeypatch.setattr(export_data, "BATCH_SIZE", 500)
    tag = make_tag("Poster", TagKind.TRACK)
    make_many_papers(1200, tag)
    owner = make_user("owner")
    reading_list = make_reading_list(owner, "Huge")
    ReadingListItem.objects.bulk_create(
        ReadingListItem(reading_list=reading_list, paper=paper, position=position)
        for position, paper in enumerate(Paper.objects.order_by("pk"))
    )
    client.force_login(owner)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("annotations:list-export-csv", args=[reading_list.pk]))
    rows = list(csv.reader(io.StringIO(response.getvalue().decode("utf-8-sig"))))
    # the items, then 3 batches: papers, tags, authorships, years added; the names once
    assert len(batch_queries(queries)) == 3
    assert len(outside_cache(queries)) <= 1 + 3 * 4 + 1 + 4
    assert len(rows) == 1 + 1200 and rows[0][4:6] == ["status", "priority"]
