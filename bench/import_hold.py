"""How long an add-by-link import holds the write transaction, at a catalogue of N papers.

    DJANGO_DEBUG=1 DATABASE_URL=sqlite:////tmp/hold.sqlite3 \
        python -m bench.import_hold --papers 20000

Fills the database named by DATABASE_URL (migrated first) with generated papers up to
`--papers` (bench.generate_corpus, through import_papers), then imports `--adds` new papers one
at a time as adding by link does (one arXiv record, papers.sources.single), and prints the
median and maximum of: the time from the import transaction's start to its commit (SQLite's
write lock, or PostgreSQL's import lock, is held that long), and the whole call (duplicate
flagging after the commit included). Use a database of its own: it is written to (it refuses
to run without DATABASE_URL, which would be the project's db.sqlite3). Unlike the harness's
scripts it runs Django in its own process: what it times is inside the import.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--adds", type=int, default=15)
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        parser.error("set DATABASE_URL to a database of its own: this fills it with papers")

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench.generate_corpus import CorpusGenerator, write_jsonl
    from papers.importing.pipeline import import_records
    from papers.importing.records import PaperRecord
    from papers.models import Paper

    call_command("migrate", verbosity=0)
    missing = args.papers - Paper.objects.count()
    if missing > 0:
        with tempfile.TemporaryDirectory() as folder:
            corpus = Path(folder) / "corpus.jsonl"
            write_jsonl(corpus, missing, seed=Paper.objects.count() + 1)
            call_command("import_papers", str(corpus), verbosity=0)
    print(f"{Paper.objects.count()} papers, {connection.vendor}", file=sys.stderr)

    held: list[float] = []
    started: list[float] = []
    begin, commit = connection.set_autocommit, connection.commit

    def set_autocommit(autocommit, *a, **kw):
        if not autocommit and not connection.in_atomic_block:
            started.append(time.perf_counter())
        return begin(autocommit, *a, **kw)

    def timed_commit():
        commit()
        if started:
            held.append(time.perf_counter() - started.pop())

    connection.set_autocommit, connection.commit = set_autocommit, timed_commit
    generator = CorpusGenerator(args.adds, seed=int(time.time()))
    base = Paper.objects.count()
    totals: list[float] = []
    longest: list[float] = []  # per add, its longest write transaction
    for number, fields in enumerate(generator.records(), start=1):
        record = PaperRecord(
            title=fields["title"],
            forum_id="",
            forum_url="",
            pdf_url="",
            authors=fields["authors"],
            tags=[],
            abstract=fields["abstract"],
            source="arxiv",
            line=1,
            arxiv_id=f"9{base % 1000:03d}.{number:05d}",
        )
        held.clear()
        start = time.perf_counter()
        import_records([record], source="arxiv", invoked_by="bench.import_hold")
        totals.append(time.perf_counter() - start)
        longest.append(max(held))

    def ms(values: list[float]) -> str:
        return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"

    print(
        f"add-by-link at {base} papers ({connection.vendor}), {len(totals)} adds: "
        f"write transaction {ms(longest)}; whole import {ms(totals)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
