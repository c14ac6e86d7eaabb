"""Peak memory while streaming an export: 10,000 rows against 100,000 (issue 12).

`python -m bench.export_memory --papers 100000 [--db sqlite|postgres] [--format bib] [--reuse]`

The database is filled with the generated corpus (bench.harness.prepare_database, which also
builds the search index). Then each measurement runs in a fresh child process with a
production server's environment, so its peak resident memory (ru_maxrss, which only grows)
belongs to that export alone:

- N rows through annotations.exports: the list page's order (engine.all_ids, no search),
  its first N ids, streamed batch by batch (exports.stream, export_data.batches_of_papers);
- every paper through the view itself, GET /export/papers.<ext> with Django's test client as
  a member whose limit is raised to the catalogue: the file is written whole (to a temporary
  file past 8 MB), then read chunk by chunk as a server would send it.

Each line gives the rows, the file's size, the time, the peak RSS (ru_maxrss) and, sampled
after every piece sent, the largest anonymous memory (RssAnon: the heap, what the export
itself holds) over the same process just before the export (Django set up, index open, one
small export done). Flat memory means that growth does not scale with the rows. On SQLite
the peak RSS also counts the database pages read through mmap (settings: mmap_size 256 MB),
file-backed memory the kernel can drop at any time: RssFile, shown apart.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from bench.harness import (
    DATABASES,
    ROOT,
    log,
    prepared_env,
)

ROW_COUNTS = (10_000, 100_000)
WARM_UP_ROWS = 500


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def _resident_mb() -> tuple[float, float]:
    """(anonymous, file-backed) resident memory now, from /proc (Linux)."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value
    return int(fields["RssAnon"].split()[0]) / 1024, int(fields["RssFile"].split()[0]) / 1024


def child(rows: int, extension: str, via_view: bool) -> dict:
    """Runs inside the measured process: stream one export, report what it cost."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django

    django.setup()
    from django.http import QueryDict
    from django.test import Client

    from annotations import export_data, exports
    from papers.filters import PaperFilter
    from papers.search import engine
    from papers.search.sync import current_searcher

    fmt = exports.FORMATS[extension]
    query = PaperFilter(QueryDict("")).state.engine_query(page=1)
    ids = engine.all_ids(current_searcher(), query)
    # Warm up (imports, connection, index, a first batch) so the baseline holds all of it.
    for _ in exports.stream(fmt, export_data.batches_of_papers(ids[:WARM_UP_ROWS])):
        pass
    from django.contrib.auth import get_user_model
    from django.test import override_settings

    client = Client()
    # A member, with the member limit raised to the whole catalogue: the export is written
    # (to a temporary file past 8 MB) and sent whole, not refused.
    member, _ = get_user_model().objects.get_or_create(username="bench-export-memory")
    client.force_login(member)
    override_settings(EXPORT_MAX_MEMBER=len(ids)).enable()
    client.get("/accounts/login/")
    anon_before, _ = _resident_mb()
    anon_peak = file_peak = 0.0
    started = time.perf_counter()
    size = 0
    if via_view:
        response = client.get(f"/export/papers.{extension}")
        assert response.status_code == 200 and response.streaming, response.status_code
        pieces = iter(response.streaming_content)
        rows = len(ids)
    else:
        pieces = (
            p.encode() for p in exports.stream(fmt, export_data.batches_of_papers(ids[:rows]))
        )
    for piece in pieces:
        size += len(piece)
        anon, file = _resident_mb()
        anon_peak, file_peak = max(anon_peak, anon), max(file_peak, file)
    return {
        "rows": min(rows, len(ids)),
        "via": "view" if via_view else "exports",
        "mb": size / 2**20,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": _peak_rss_mb(),
        "anon_before_mb": anon_before,
        "anon_growth_mb": anon_peak - anon_before,
        "file_peak_mb": file_peak,
    }


def measure(env: dict[str, str], rows: int, extension: str, *, via_view: bool) -> dict:
    command = [sys.executable, "-m", "bench.export_memory", "--child", str(rows)]
    command += ["--format", extension] + (["--via-view"] if via_view else [])
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"export child failed:\n{result.stdout[-2000:]}{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def run(db: str, papers: int, extension: str, *, reuse: bool) -> None:
    env = prepared_env(db, papers, reuse=reuse)
    counts = [n for n in ROW_COUNTS if n <= papers] or [papers]
    results = [measure(env, n, extension, via_view=False) for n in counts]
    results.append(measure(env, papers, extension, via_view=True))
    print(f"\nExport memory, {db}, {papers:,} papers, .{extension}")
    print(
        f"{'rows':>9}  {'through':<8} {'file MB':>8} {'seconds':>8} {'peak RSS MB':>12} "
        f"{'heap before MB':>15} {'heap growth MB':>15} {'mmap/file MB':>13}"
    )
    for r in results:
        print(
            f"{r['rows']:>9,}  {r['via']:<8} {r['mb']:>8.1f} {r['seconds']:>8.1f} "
            f"{r['peak_rss_mb']:>12.0f} {r['anon_before_mb']:>15.0f} "
            f"{r['anon_growth_mb']:>15.1f} {r['file_peak_mb']:>13.0f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="sqlite")
    parser.add_argument("--format", choices=["bib", "ris", "json", "csv"], default="bib")
    parser.add_argument("--reuse", action="store_true", help="keep a database already filled")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--via-view", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.format, args.via_view)))
        return 0
    for db in DATABASES if args.db == "both" else [args.db]:
        log(f"[{db}] preparing {args.papers:,} papers")
        run(db, args.papers, args.format, reuse=args.reuse)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
