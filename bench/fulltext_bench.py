"""PDF text for search: extraction in pages/s, and the index build with full text.

1. Extraction. Generated PDFs (tests/pdf_files.make_positioned_pdf: two-column pages of corpus
   sentences with ligatures, PAGES pages each) are read as the worker reads a stored PDF:
   pdfs.extraction.extract_text, one child process per PDF with the default time and memory
   limits. Prints pages/s through the child (what a worker achieves) and the child's start-up
   share. With --pdf-dir, the real PDFs in that directory too (none are committed: see
   docs/pdfs.md for where the measured papers came from).
2. Index. PAPERS papers (bench.engine_bench.paper_records: the synthetic corpus) are indexed
   into a fresh index by papers.search.schema and documents.make_document, the engine alone,
   no database: once with titles and abstracts only, once with a generated body of BODY_PAGES
   pages of BODY_PAGE_CHARS characters each (sentences of other papers' abstracts, so the
   vocabulary is the corpus's). Prints seconds, papers/s and the index's size for both.

    make bench-fulltext                                  # 40 PDFs, 10,000 papers
    python -m bench.fulltext_bench --pdfs 10 --papers 2000 --pdf-dir /tmp/papers
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from bench.engine_bench import _setup_django, paper_records

PAGES = 10
LINES_PER_COLUMN = 55
LINE_CHARS = 34
BODY_PAGES = 10
BODY_PAGE_CHARS = 3500  # a two-column conference page holds 3,000 to 4,500 characters


def _sentences(records: list, rng: random.Random) -> Iterator[str]:
    abstracts = [record.abstract for record in records]
    while True:
        yield from rng.choice(abstracts).split(". ")


def _column_lines(sentences: Iterator[str], count: int) -> list[str]:
    """`count` lines of about LINE_CHARS characters, words kept whole, a ligature now and then."""
    lines: list[str] = []
    line = ""
    while len(lines) < count:
        for word in next(sentences).split():
            if len(line) + len(word) + 1 > LINE_CHARS:
                lines.append(line.replace("fi", "ﬁ"))
                line = ""
            line = f"{line} {word}".strip()
    return lines[:count]


def generated_pdf(sentences: Iterator[str], pages: int) -> bytes:
    from tests.pdf_files import make_positioned_pdf, two_column_page

    return make_positioned_pdf(
        [
            two_column_page(
                _column_lines(sentences, LINES_PER_COLUMN),
                _column_lines(sentences, LINES_PER_COLUMN),
            )
            for _ in range(pages)
        ]
    )


def extraction(pdfs: list[bytes], label: str) -> None:
    from pdfs.extraction import extract_text

    limits = {"timeout": 60, "memory_mb": 1024, "max_chars": 10**9, "max_pages": 10**6}
    started = time.perf_counter()
    pages = chars = failed = 0
    for data in pdfs:
        extracted = extract_text(data, **limits)
        pages += len(extracted.pages)
        chars += len(extracted.text)
        failed += extracted.failure is not None
    seconds = time.perf_counter() - started
    # The child's fixed cost: an interpreter and pypdf's import, measured on an empty read.
    empty = extract_text(b"%PDF-1.4\n", **limits)  # fails fast, after the same start-up
    starts = []
    for _ in range(5):
        begun = time.perf_counter()
        extract_text(b"%PDF-1.4\n", **limits)
        starts.append(time.perf_counter() - begun)
    assert empty.failure is not None
    start_up = statistics.median(starts)
    print(
        f"  {label}: {len(pdfs)} PDFs, {pages} pages, {chars:,} characters in {seconds:.1f} s: "
        f"{pages / seconds:.1f} pages/s ({failed} failed); child start-up "
        f"{start_up * 1000:.0f} ms a PDF ({start_up * len(pdfs) / seconds:.0%} of the time)"
    )


def bodies(records: list, seed: int) -> Iterator:
    """The records with a generated body of BODY_PAGES pages, made as the index reads them."""
    rng = random.Random(seed)
    sentences = _sentences(records, rng)
    for record in records:
        pages = []
        for _ in range(BODY_PAGES):
            page = ""
            while len(page) < BODY_PAGE_CHARS:
                page += next(sentences) + ". "
            pages.append(page[:BODY_PAGE_CHARS])
        yield replace(record, body="\f".join(pages), has_pdf=True)


def index_build(records, label: str, count: int) -> None:
    from papers.search import schema
    from papers.search.documents import make_document
    from papers.search.store import BUILD_HEAP_BYTES, BUILD_THREADS

    with tempfile.TemporaryDirectory(prefix="fulltext-bench-") as directory:
        started = time.perf_counter()
        index = schema.create_index(directory)
        writer = index.writer(heap_size=BUILD_HEAP_BYTES, num_threads=BUILD_THREADS)
        for record in records:
            writer.add_document(make_document(record))
        writer.commit()
        writer.wait_merging_threads()
        seconds = time.perf_counter() - started
        size = sum(path.stat().st_size for path in Path(directory).rglob("*") if path.is_file())
    print(
        f"  {label}: {count:,} papers in {seconds:.1f} s, {count / seconds:,.0f} papers/s, "
        f"index {size / 2**20:,.0f} MB"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdfs", type=int, default=40, help="generated PDFs to read")
    parser.add_argument("--papers", type=int, default=10_000, help="papers in the index build")
    parser.add_argument("--pdf-dir", type=Path, help="also read every *.pdf in this directory")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    _setup_django()
    records = paper_records(args.papers, args.seed)

    print(f"PDF text extraction (pypdf in a child process, {PAGES}-page two-column PDFs):")
    sentences = _sentences(records, random.Random(args.seed))
    extraction([generated_pdf(sentences, PAGES) for _ in range(args.pdfs)], "generated")
    if args.pdf_dir:
        real = [path.read_bytes() for path in sorted(args.pdf_dir.glob("*.pdf"))]
        extraction(real, f"real PDFs in {args.pdf_dir}")

    print(f"Index build, engine alone ({BODY_PAGES} pages of {BODY_PAGE_CHARS:,} characters):")
    index_build(records, "titles and abstracts", len(records))
    index_build(bodies(records, args.seed), "with full text", len(records))


if __name__ == "__main__":
    main()
