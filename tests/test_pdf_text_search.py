"""A stored PDF's text reaches search: read when the file is stored or replaced, found from the
list page's search box with a snippet naming its page, ranked below title and abstract; a PDF
that cannot be read is a note for curators, never an error for readers; the "Has PDF" facet."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from alerts.models import SavedSearch
from alerts.queries import new_counts, normalise_query
from papers.models import Paper, SearchChange
from papers.search import documents, schema
from pdfs.models import PaperPdf, PdfText
from pdfs.texts import extract_paper_text
from tests.factories import make_paper
from tests.pdf_files import make_positioned_pdf, two_column_page
from tests.pdf_files import one_line_pages_pdf as paper_pdf
from tests.pdf_search_helpers import search, shown, store

pytestmark = pytest.mark.django_db

PHRASE = "quasiperiodic lattice sampler"


@pytest.fixture(autouse=True)
def _media_and_tasks(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    # Tasks run when enqueued, as the worker would run them.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def test_a_phrase_only_in_the_pdf_finds_the_paper_with_its_page(
    client, django_capture_on_commit_callbacks
):
    paper = make_paper("Point sets for everyone", abstract="We study point sets.")
    make_paper("Another paper", abstract="Nothing about samplers here.")
    content = paper_pdf("Introduction.", "Related work.", f"Our {PHRASE} converges fast.")
    store(paper, content, django_capture_on_commit_callbacks)

    response = search(client, f'"{PHRASE}"')

    assert shown(response) == {
        "Point sets for everyone": '<span class="muted">in the PDF, p. 3:</span> Our '
        "<mark>quasiperiodic</mark> "
        "<mark>lattice</mark> <mark>sampler</mark> converges fast."
    }


def test_a_match_in_the_abstract_keeps_the_abstracts_snippet(
    client, django_capture_on_commit_callbacks
):
    paper = make_paper("Samplers", abstract=f"A {PHRASE} in the abstract.")
    store(paper, paper_pdf(f"The {PHRASE} again in the body."), django_capture_on_commit_callbacks)

    headline = shown(search(client, PHRASE))["Samplers"]

    assert "in the PDF" not in headline
    assert "in the abstract" in headline


def test_title_and_abstract_rank_above_the_pdf(client, django_capture_on_commit_callbacks):
    in_body = make_paper("First paper", abstract="Unrelated words.")
    store(in_body, paper_pdf("hypergraph " * 20), django_capture_on_commit_callbacks)
    make_paper("Second paper", abstract="A hypergraph method.")
    make_paper("Hypergraph title", abstract="Unrelated words.")

    order = list(shown(search(client, "hypergraph")))

    assert order == ["Hypergraph title", "Second paper", "First paper"]


def test_the_text_follows_a_replaced_file(client, django_capture_on_commit_callbacks):
    paper = make_paper("Versions", abstract="Two versions of a paper.")
    store(paper, paper_pdf("The first version says zeppelin."), django_capture_on_commit_callbacks)
    assert "Versions" in shown(search(client, "zeppelin"))

    store(paper, paper_pdf("The second says dirigible."), django_capture_on_commit_callbacks)

    assert shown(search(client, "zeppelin")) == {}
    assert "Versions" in shown(search(client, "dirigible"))
    text = PdfText.objects.get(pdf__paper=paper)
    assert text.sha256 == PaperPdf.objects.get(paper=paper).sha256


def test_a_deleted_pdf_takes_its_text_out_of_search(client, django_capture_on_commit_callbacks):
    paper = make_paper("Gone", abstract="Short.")
    store(paper, paper_pdf("ornithopter"), django_capture_on_commit_callbacks)

    PaperPdf.objects.get(paper=paper).delete()

    assert shown(search(client, "ornithopter")) == {}
    assert not PdfText.objects.exists()


def test_an_unreadable_pdf_is_kept_for_curators_and_searching_still_works(
    client, admin_client, settings, django_capture_on_commit_callbacks
):
    settings.PDF_TEXT_TIMEOUT = 0.01  # no PDF can be read this fast
    paper = make_paper("Slow to read", abstract="An abstract about gliders.")
    store(paper, paper_pdf("text nobody will read"), django_capture_on_commit_callbacks)

    text = PdfText.objects.get(pdf__paper=paper)
    assert (text.failure, text.text) == ("time limit", "")
    assert "Slow to read" in shown(search(client, "gliders"))
    admin_list = admin_client.get(
        reverse("admin:pdfs_pdftext_changelist"), {"failure": "time limit"}
    )
    assert admin_list.status_code == 200
    assert "time limit" in admin_list.content.decode()


def test_an_unchanged_file_is_not_read_again(django_capture_on_commit_callbacks):
    paper = make_paper()
    store(paper, paper_pdf("once"), django_capture_on_commit_callbacks)
    first = PdfText.objects.get().extracted_at

    outcome, _ = extract_paper_text(paper.pk)

    assert outcome == "unchanged"
    assert PdfText.objects.get().extracted_at == first


def test_the_command_reads_the_pdfs_without_text(settings, django_capture_on_commit_callbacks):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    readable, broken = make_paper(), make_paper()
    store(readable, paper_pdf("page one", "page two"), django_capture_on_commit_callbacks)
    store(broken, b"%PDF-1.4\nnot really a PDF", django_capture_on_commit_callbacks)
    assert not PdfText.objects.exists()  # the task was only queued

    out = StringIO()
    call_command("extract_pdf_text", stdout=out)

    assert f"paper {broken.pk}: broken PDF: " in out.getvalue()
    assert out.getvalue().endswith("PDF text: 1 read (2 pages), 0 unchanged, 1 failed.\n")
    assert PdfText.objects.get(pdf__paper=readable).text == "page one\fpage two"
    again = StringIO()
    call_command("extract_pdf_text", stdout=again)
    assert again.getvalue() == "PDF text: 0 read (0 pages), 0 unchanged, 0 failed.\n"
    call_command("extract_pdf_text", "--paper", str(readable.pk), stdout=again)
    assert "PDF text: 1 read (2 pages)" in again.getvalue()


def test_two_column_text_is_searchable_as_a_phrase_across_a_column(
    client, django_capture_on_commit_callbacks
):
    paper = make_paper("Columns", abstract="Short.")
    page = two_column_page(
        ["We introduce the ﬁnite", "ensemble estimator here."], ["Unrelated right column."]
    )
    store(paper, make_positioned_pdf([page]), django_capture_on_commit_callbacks)

    assert "Columns" in shown(search(client, '"finite ensemble estimator"'))


# The "Has PDF" facet


def pdf_counts(response) -> dict[str, int]:
    facet = next(f for f in response.context["facets"] if f.param == "pdf")
    return {value.label: value.count for value in facet.values}


def test_has_pdf_counts_are_the_databases(client, django_capture_on_commit_callbacks):
    papers = [make_paper(f"Paper {n}", abstract=f"Topic {n % 2} words.") for n in range(5)]
    for paper in papers[:2]:
        store(paper, paper_pdf("body"), django_capture_on_commit_callbacks)

    response = search(client, "")
    with_pdf = Paper.objects.filter(pdf_file__isnull=False).count()
    assert (
        pdf_counts(response)
        == {"Has PDF": with_pdf, "No PDF": 5 - with_pdf}
        == {
            "Has PDF": 2,
            "No PDF": 3,
        }
    )
    # Counted over the other facets' and the search's matches, not its own selection.
    narrowed = search(client, "topic 0", pdf="yes")
    in_topic = Paper.objects.filter(abstract__contains="Topic 0")
    assert {p.title for p in narrowed.context["papers"]} == set(
        in_topic.filter(pdf_file__isnull=False).values_list("title", flat=True)
    )
    assert pdf_counts(narrowed) == {
        "Has PDF": in_topic.filter(pdf_file__isnull=False).count(),
        "No PDF": in_topic.filter(pdf_file__isnull=True).count(),
    }


def test_has_pdf_is_a_chip_a_link_and_part_of_a_saved_search(
    client, user, django_capture_on_commit_callbacks
):
    paper = make_paper("Kept")
    make_paper("Not kept")
    store(paper, paper_pdf("body"), django_capture_on_commit_callbacks)

    response = client.get(reverse("papers:list"), {"pdf": "yes"})

    assert [p.title for p in response.context["papers"]] == ["Kept"]
    assert [(c["facet"], c["label"]) for c in response.context["chips"]] == [("PDF", "Has PDF")]
    assert 'name="pdf" value="yes" checked' in response.content.decode()
    assert normalise_query("pdf=yes&pdf=bogus", user).query == "pdf=yes"


def test_the_facet_is_left_out_while_no_pdf_is_kept(client):
    make_paper()

    response = search(client, "")

    assert all(facet.param != "pdf" for facet in response.context["facets"])


def test_list_page_queries_with_body_snippets_stay_bounded(
    client, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    for n in range(12):
        paper = make_paper(f"Paper {n}", abstract="An abstract without the word.")
        store(
            paper,
            paper_pdf("intro", f"the gyroscope is on page two, {n}"),
            django_capture_on_commit_callbacks,
        )
    search(client, "gyroscope")  # the index catches up once

    # search index up to date?, page rows, first authorships, tags, tag facet labels, author
    # facet names, the page's PDF texts (one query for every body snippet).
    with django_assert_max_num_queries(7):
        response = search(client, "gyroscope", pdf="yes")

    assert len(response.context["papers"]) == 12
    assert all("in the PDF, p. 2:</span>" in h for h in shown(response).values())


def test_the_index_reads_the_pdf_texts_of_a_chunk_in_one_more_query(
    django_capture_on_commit_callbacks, django_assert_num_queries
):
    with_pdf, without = make_paper(), make_paper()
    store(with_pdf, paper_pdf("some text"), django_capture_on_commit_callbacks)

    # papers, authorships, tags, and the texts of those with a stored PDF
    with django_assert_num_queries(4):
        docs = list(documents.paper_documents([with_pdf.pk, without.pk], popular=frozenset()))

    assert [d.get_first(schema.HAS_PDF) for d in docs] == [1, 0]


def test_the_index_holds_at_most_the_character_limit_of_a_pdf(
    client, settings, django_capture_on_commit_callbacks
):
    paper = make_paper("Limited", abstract="Short.")
    store(paper, paper_pdf("alpha bravo", "charlie"), django_capture_on_commit_callbacks)
    assert "Limited" in shown(search(client, "charlie"))

    settings.PDF_TEXT_MAX_CHARS = len("alpha bravo")  # lowered after the text was read
    SearchChange.objects.record([paper.pk])

    assert shown(search(client, "charlie")) == {}
    assert "Limited" in shown(search(client, "bravo"))


def test_pdf_text_in_a_snippet_is_escaped(client, django_capture_on_commit_callbacks):
    paper = make_paper("Hostile", abstract="Short.")
    store(
        paper,
        paper_pdf('<script>alert("x")</script> & the xylophone <b>'),
        django_capture_on_commit_callbacks,
    )

    headline = shown(search(client, "xylophone"))["Hostile"]

    assert "<script>" not in headline and "<b>" not in headline
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; the <mark>xylophone</mark>" in (
        headline
    )


def test_a_saved_search_on_has_pdf_counts_only_new_papers_with_one(
    user, django_capture_on_commit_callbacks
):
    kept, _not_kept = make_paper("Kept"), make_paper("Not kept")
    store(kept, paper_pdf("body"), django_capture_on_commit_callbacks)
    before = min(Paper.objects.values_list("created_at", flat=True)) - timedelta(seconds=1)
    with_pdf = SavedSearch.objects.create(
        owner=user, name="With PDF", query="pdf=yes", last_seen_at=before
    )
    everything = SavedSearch.objects.create(owner=user, name="All", query="", last_seen_at=before)

    assert new_counts(user, [with_pdf, everything]) == {with_pdf.pk: 1, everything.pk: 2}
