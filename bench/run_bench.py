"""Latency benchmark: p50/p95 per page type through gunicorn, on SQLite and PostgreSQL.

For each database: a fresh database (SQLite file under bench/out/, PostgreSQL database `bench`),
migrate, generate the synthetic corpus (bench.generate_corpus), time `manage.py import_papers`,
ANALYZE, collectstatic, start gunicorn (config/gunicorn.conf.py, 2 workers, DEBUG off) on a free
loopback port, warm up, then time sequential requests of each page type. Queries per page are
counted separately with Django's test client. Prints a table per database and writes it as
Markdown to bench/out/results.md. Then, unless --no-fetch, the fetch rate of the same databases
(bench.fetch_bench: fetch_openreview and fetch_arxiv against local stand-ins, on their own fresh
databases; about 15 s a database, little next to the pages).

    make bench                                   # 100,000 papers, both databases
    python -m bench.run_bench --papers 5000 --requests 30 --db sqlite
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from dataclasses import dataclass

from bench import fetch_bench
from bench.harness import (
    DATABASES,
    OUT,
    PAGE_TYPES,
    Gunicorn,
    PageType,
    Prepared,
    get,
    git_commit,
    log,
    percentile,
    prepare_database,
    query_counts,
    sample_targets,
    server_env,
    stop_on_sigterm,
)


@dataclass
class PageResult:
    page: PageType
    p50_ms: float
    p95_ms: float
    max_ms: float
    queries: int | None
    cold_ms: float
    errors: int
    example: str
    requests: int
    # The p95 target: the page's own, or its reference page's p95 plus its margin (targets).
    target_ms: float = float("nan")

    @property
    def met(self) -> bool:
        return self.errors == 0 and self.p95_ms < self.target_ms


def with_targets(results: list[PageResult]) -> list[PageResult]:
    """Each result with its target set: a page type timed `relative_to` another must have a
    p95 within `target_ms` of that one's (measured in the same run, on the same server)."""
    p95 = {r.page.key: r.p95_ms for r in results}
    for r in results:
        base = p95.get(r.page.relative_to, float("nan")) if r.page.relative_to else 0.0
        r.target_ms = base + r.page.target_ms
    return results


def max_or_none(values: list[int | None]) -> int | None:
    return None if None in values else max(values)


def measure(
    prepared: Prepared,
    *,
    requests: int,
    warmup: int,
    workers: int,
    seed: int,
    budget: float = 180,
    timeout: float = 30,
) -> list[PageResult]:
    """Time each page type; a type stops early after `budget` seconds (at least 3 requests),
    so one pathologically slow page cannot hold the run hostage."""
    env = page_env(prepared.url)
    targets = sample_targets(prepared.url, seed=seed)
    log(f"[{prepared.db}] search terms {targets.terms}, popular authors {targets.popular_authors}")
    examples = {page.key: [page.path(targets, i) for i in range(3)] for page in PAGE_TYPES}
    counts = query_counts(env, [path for paths in examples.values() for path in paths])
    results: dict[str, PageResult] = {}
    with Gunicorn(env, workers=workers, log_name=f"gunicorn-bench-{prepared.db}") as server:
        log(f"[{prepared.db}] gunicorn pid {server.pid} on 127.0.0.1:{server.port}")
        for group in timed_together(PAGE_TYPES):
            for page in group:
                # Warm-up spreads over both workers: their connections, caches and imports.
                started = time.monotonic()
                for i in range(warmup):
                    if time.monotonic() - started > budget / 4:
                        break
                    try:
                        get(server.port, page.path(targets, requests + i), timeout=timeout)
                    except OSError:
                        pass
            started = time.monotonic()
            timings: dict[str, list[float]] = {page.key: [] for page in group}
            errors = dict.fromkeys(timings, 0)
            attempted = 0
            for i in range(requests):
                if i >= 3 and time.monotonic() - started > budget * len(group):
                    log(f"[{prepared.db}] {group[0].key}: stopped after {i} requests")
                    break
                attempted += 1
                # Pages compared with each other take turns, each first every other time:
                # the machine's load, which moves from second to second, weighs on both alike.
                for page in group if i % 2 == 0 else group[::-1]:
                    path = page.path(targets, i)
                    try:
                        response = get(server.port, path, timeout=timeout)
                    except OSError as error:
                        log(f"[{prepared.db}] {page.key}: {error}")
                        errors[page.key] += 1
                        continue
                    if response.status != 200:
                        errors[page.key] += 1
                        log(f"[{prepared.db}] {page.key} {path}: {response.status}")
                    timings[page.key].append(response.seconds * 1000)
            for page in group:
                times = timings[page.key]
                done = results[page.key] = PageResult(
                    page=page,
                    p50_ms=percentile(times, 50) if times else float("nan"),
                    p95_ms=percentile(times, 95) if times else float("nan"),
                    max_ms=max(times) if times else float("nan"),
                    queries=max_or_none([counts[path][0] for path in examples[page.key]]),
                    cold_ms=counts[examples[page.key][0]][1],
                    errors=errors[page.key],
                    example=examples[page.key][0],
                    requests=attempted,
                )
                p50, p95 = done.p50_ms, done.p95_ms
                log(f"[{prepared.db}] {page.key}: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    return with_targets([results[page.key] for page in PAGE_TYPES])


def timed_together(pages: tuple[PageType, ...]) -> list[list[PageType]]:
    """The page types in groups timed in turns: one compared `relative_to` another joins that
    one's group; every other page type is alone, in the given order."""
    groups: dict[str, list[PageType]] = {}
    for page in pages:
        groups.setdefault(page.relative_to or page.key, []).append(page)
    return list(groups.values())


def page_env(url: str) -> dict[str, str]:
    """The servers' environment: production's, with search by meaning off unless the caller's
    environment says SEMANTIC_SEARCH (the corpus has no embeddings: a search would run the
    model on every question for nothing, and its per-process cache of questions would answer
    the API's questions the list page asked; hybrid search has its own bench.hybrid_bench)."""
    env = server_env(url)
    env.setdefault("SEMANTIC_SEARCH", "off")
    return env


def target_label(result: PageResult) -> str:
    page = result.page
    if page.relative_to:
        return f"< {result.target_ms:.0f} ms ({page.relative_to} + {page.target_ms:.0f})"
    return f"< {page.target_ms:.0f} ms"


def table(prepared: Prepared, results: list[PageResult], requests: int) -> str:
    name = {"sqlite": "SQLite", "postgres": "PostgreSQL"}[prepared.db]
    imported = (
        f"import {prepared.papers:,} papers: {prepared.import_seconds:.1f} s = "
        f"**{prepared.papers_per_second:,.0f} papers/s** ({prepared.import_summary})"
    )
    if prepared.reused_from:
        imported += f"; database reused, import timed {prepared.reused_from}"
    if prepared.import_rss_mb is not None:
        imported += f", peak RSS {prepared.import_rss_mb:,.0f} MB"
    if prepared.reimport_seconds:
        rate = prepared.papers / prepared.reimport_seconds
        imported += (
            f"; unchanged re-import of the same file {prepared.reimport_seconds:.1f} s = "
            f"{rate:,.0f} papers/s"
        )
    if prepared.record_reimport_seconds:
        rate = prepared.papers / prepared.record_reimport_seconds
        imported += (
            f"; of the same records in a rewritten file {prepared.record_reimport_seconds:.1f} s"
            f" = {rate:,.0f} papers/s"
        )
    if prepared.index_seconds is not None:
        imported += f"; search index built or caught up in {prepared.index_seconds:.1f} s"
        if prepared.import_seconds and not prepared.reused_from:
            total = prepared.import_seconds + prepared.index_seconds
            imported += f" (import and index: {prepared.papers / total:,.0f} papers/s)"
    if not results:  # --import-only
        return f"### {name}: {imported}"
    lines = [
        f"### {name}: {imported}",
        "",
        f"| Page ({requests} requests each) | p50 ms | p95 ms | max ms | cold ms "
        "| queries | target p95 | met? |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        verdict = "yes" if r.met else f"NO ({r.p95_ms - r.target_ms:+.0f} ms)"
        if r.errors:
            verdict = f"NO ({r.errors} errors)"
        label = r.page.label if r.requests == requests else f"{r.page.label} ({r.requests} only)"
        queries = "?" if r.queries is None else r.queries
        lines.append(
            f"| {label} | {r.p50_ms:.1f} | {r.p95_ms:.1f} | {r.max_ms:.1f} | {r.cold_ms:.0f} "
            f"| {queries} | {target_label(r)} | {verdict} |"
        )
    lines.append("")
    lines.append("Example URLs: " + ", ".join(f"`{r.example}`" for r in results))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=30, help="timed requests per page type")
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests per page type")
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget", type=float, default=90, help="seconds of timed requests per page type at most"
    )
    parser.add_argument(
        "--reuse", action="store_true", help="keep a database that already holds --papers papers"
    )
    parser.add_argument(
        "--import-only",
        action="store_true",
        help="time the import, re-import and index build only, no pages",
    )
    parser.add_argument(
        "--no-fetch", action="store_true", help="leave out the fetch rate (bench.fetch_bench)"
    )
    args = parser.parse_args(argv)
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    stop_on_sigterm()
    databases = DATABASES if args.db == "both" else (args.db,)
    started = datetime.datetime.now(datetime.UTC)
    sections: list[str] = []
    for db in databases:
        prepared = prepare_database(db, args.papers, seed=args.seed, reuse=args.reuse)
        if args.import_only:
            sections.append(table(prepared, [], args.requests))
            print("\n" + sections[-1] + "\n", flush=True)
            continue
        results = measure(
            prepared,
            requests=args.requests,
            warmup=args.warmup,
            workers=args.workers,
            seed=args.seed,
        )
        sections.append(table(prepared, results, args.requests))
        print("\n" + sections[-1] + "\n", flush=True)
    if not args.no_fetch:
        for section in fetch_bench.sections(databases):
            sections.append(section)
            print("\n" + section + "\n", flush=True)
    command = "python -m bench.run_bench " + " ".join(argv if argv is not None else sys.argv[1:])
    header = [
        f"## Benchmark: {args.papers:,} papers "
        f"({started:%Y-%m-%d %H:%M} UTC, commit {git_commit()})",
        "",
        f"Command: `{command.strip()}` (`make bench` runs it with defaults). "
        f"Machine: {os.cpu_count()} CPU cores shared with other work; gunicorn "
        f"{args.workers} sync workers on loopback, DEBUG off; {args.warmup} warm-up then "
        f"{args.requests} sequential requests per page type, new connection each; latency is "
        "request sent to last byte read. Every request of a page type is a distinct URL (40 "
        "common search terms, 40 rare ones, 40 most prolific authors, 3 tracks) except the "
        "unfiltered list; the app keeps no cache of pages or counts, so a repeat is computed "
        "again. Cold ms: the first request of one URL of the type in a fresh process (Django "
        "test client). Queries: the largest count over three URLs of the type. "
        "Targets (issue 9): p95 <= 50 ms per page, <= 25 ms for the paper page; the API's "
        "search within 10 ms of the list page's (issue 42). Search by meaning off "
        "(SEMANTIC_SEARCH=off unless set; hybrid search: bench.hybrid_bench).",
        "",
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    report = "\n".join(header) + "\n" + "\n\n".join(sections) + "\n"
    (OUT / "results.md").write_text(report)
    log(f"written {OUT / 'results.md'} ({time.strftime('%H:%M:%S')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
