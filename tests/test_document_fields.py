"""The search document is declared once (papers.search.document_fields, issue 29): whatever
column the document builder's queries read, a write of it reaches the index, through the change
signals or the importer's "what changed" test. A column read and not watched would leave the
index stale after an edit, silently; this fails first."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from papers.importing import loader
from papers.models import Author, Paper, SearchChange, Tag, TagKind
from papers.search import document_fields, documents
from papers.signals import INDEXED_PAPER_FIELDS
from pdfs.models import PdfText
from tests.factories import make_paper
from tests.highlight_helpers import store_pdf_row

pytestmark = pytest.mark.django_db

# Writes to these tables are recorded whatever the column: every save or delete of a link
# (papers.signals) and of a stored PDF or its text (pdfs.signals, pdfs.storing, pdfs.texts).
RECORDED_ON_ANY_WRITE = {"papers_authorship", "papers_papertag", "pdfs_paperpdf", "pdfs_pdftext"}
_COLUMN = re.compile(r'"(\w+)"\."(\w+)"')


def columns_read_by_the_builder() -> dict[str, set[str]]:
    """Table -> the columns the builder's queries name, for a paper with everything: authors,
    tags, a stored PDF with its text."""
    paper = make_paper(
        "A paper", authors=["Ada Example"], tags=[("ICLR 2024", TagKind.VENUE)], mean_rating=6.5
    )
    pdf = store_pdf_row(paper)
    PdfText.objects.create(
        pdf=pdf, sha256=pdf.sha256, text="Its text.", page_count=1, extracted_at=timezone.now()
    )
    with CaptureQueriesContext(connection) as queries:
        (document,) = documents.paper_documents([paper.pk], popular=frozenset())
    assert document.get_first("body") == "Its text."  # every part of the builder ran
    read: dict[str, set[str]] = {}
    for query in queries.captured_queries:
        for table, column in _COLUMN.findall(query["sql"]):
            read.setdefault(table, set()).add(column)
    assert "pdfs_pdftext" in read  # the PDF's text was read
    return read


def field_names(model, columns: set[str]) -> set[str]:
    by_column = {field.column: field.name for field in model._meta.concrete_fields}
    return {by_column[column] for column in columns} - {model._meta.pk.name}


def test_every_paper_field_the_document_reads_is_watched_by_the_signals_and_the_importer():
    read = columns_read_by_the_builder()
    paper_fields = field_names(Paper, read.pop(Paper._meta.db_table))
    assert paper_fields  # title, abstract, ... (the test reads the queries, not the declaration)
    assert paper_fields <= INDEXED_PAPER_FIELDS
    assert paper_fields <= loader.INDEXED_FIELDS
    assert field_names(Tag, read.pop(Tag._meta.db_table)) <= set(document_fields.TAG_FIELDS)
    assert field_names(Author, read.pop(Author._meta.db_table)) <= document_fields.AUTHOR_FIELDS
    assert set(read) <= RECORDED_ON_ANY_WRITE


@pytest.mark.parametrize("field", sorted(document_fields.PAPER_FIELDS))
def test_saving_a_field_of_the_document_records_the_paper(field):
    paper = make_paper("A paper")
    before = SearchChange.objects.count()
    paper.save(update_fields=[field])
    assert SearchChange.objects.count() > before


def test_saving_a_field_no_document_holds_records_nothing():
    paper = make_paper("A paper")
    before = SearchChange.objects.count()
    paper.needs_curation = True
    paper.save(update_fields=["needs_curation"])
    assert SearchChange.objects.count() == before


def test_a_tag_of_another_kind_is_recorded_and_a_renamed_one_is_not():
    paper = make_paper("A paper", tags=[("ICLR 2024", TagKind.VENUE)])
    tag = paper.tags.get()
    before = SearchChange.objects.count()
    tag.name = "ICLR 2024 (main)"
    tag.save()
    assert SearchChange.objects.count() == before
    tag.kind = TagKind.LAB
    tag.save()
    assert SearchChange.objects.count() > before
