"""What a paper's search document is read from, declared once (issue 29).

The document builder (documents.py) reads exactly these; the change signals (papers.signals)
record a paper when a write touches one of them; the importer's "what changed" test
(importing.loader) counts a paper changed for the index when it changed one of them. So the
three cannot disagree, and tests/test_document_fields.py fails when the builder reads a column
this module does not declare (what its queries select, whatever module they are written in).
The index's own fields, which these fill, are declared in schema.py.

A leaf module: plain names, no import.
"""

from __future__ import annotations

# The paper's columns, as documents.py reads them (in this order): its id, its text, the sort
# keys' values, and whether the site keeps its PDF (pdfs.PaperPdf, one-to-one; papers never
# imports pdfs, which records its own writes: pdfs.signals, pdfs.storing).
PAPER_COLUMNS = ("pk", "title", "abstract", "created_at", "mean_rating", "pdf_file__pk")

# The paper's own fields whose change changes its document: written by a save() they are
# recorded (papers.signals), by an import they count as a change for the index (the loader).
# `author_names` is no field of the document: it is the paper's author list as text, written
# whenever its authors change (Paper.refresh_author_names, the importer), which does.
PAPER_FIELDS = frozenset(
    {column for column in PAPER_COLUMNS if column != "pk" and "__" not in column} | {"author_names"}
)

# Linked rows, read for each paper: its authors in order (Authorship, with the Author's name)
# and its tags with their kind (PaperTag, with the Tag's kind). Any write of a link is
# recorded; of the linked Author and Tag only these fields are read: a tag's rename changes no
# document (they hold tag ids), its kind does (documents hold tag ids by kind). An author's
# rename is recorded by services.refresh_author_names, the one way names change.
AUTHORSHIP_COLUMNS = ("paper_id", "author_id", "author__name")
PAPER_TAG_COLUMNS = ("paper_id", "tag_id", "tag__kind")
AUTHOR_FIELDS = frozenset({"name"})
TAG_FIELDS = ("kind",)
