"""Load run: concurrent clients against gunicorn on loopback, bounded in time and requests.

Uses the benchmark's database (bench.harness.prepare_database; --reuse keeps one that already
holds --papers papers), starts gunicorn with config/gunicorn.conf.py, then runs --clients
threads for --duration seconds (or until --max-requests) over a weighted mix of list, facet,
search, search + facet, paper and author pages. Reports requests/s, latency percentiles and
errors (non-2xx answers and exceptions); exits 1 when any request failed.

    make load LOAD_ARGS="--reuse"
    python -m bench.load --db sqlite --papers 100000 --clients 8 --duration 60 --reuse
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from bench.harness import (
    DATABASES,
    PAGE_TYPES,
    Gunicorn,
    PageType,
    Targets,
    get,
    log,
    percentile,
    prepare_database,
    sample_targets,
    server_env,
    stop_on_sigterm,
)

# Share of requests per page type: browsing and filtering dominate, then search and detail pages.
MIX = {
    "list": 20,
    "list_track_author": 20,
    "search": 15,
    "search_facet": 10,
    "paper": 25,
    "author": 10,
}


@dataclass
class Tally:
    """What the clients saw; one lock guards it (a few thousand appends per second at most)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    issued: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self, limit: int) -> bool:
        with self.lock:
            if self.issued >= limit:
                return False
            self.issued += 1
            return True

    def record(self, page: str, status: int, seconds: float, path: str) -> None:
        with self.lock:
            self.latencies[page].append(seconds * 1000)
            self.statuses[status] += 1
            if not 200 <= status < 300:
                self.errors.append(f"{status} {path}")

    def fail(self, path: str, error: Exception) -> None:
        with self.lock:
            self.statuses["exception"] += 1
            self.errors.append(f"{type(error).__name__}: {error} ({path})")


def client(
    port: int,
    targets: Targets,
    tally: Tally,
    *,
    deadline: float,
    max_requests: int,
    timeout: float,
    seed: int,
) -> None:
    rng = random.Random(seed)
    pages: list[PageType] = [page for page in PAGE_TYPES if page.key in MIX]
    weights = [MIX[page.key] for page in pages]
    while time.monotonic() < deadline and tally.claim(max_requests):
        page = rng.choices(pages, weights=weights)[0]
        path = page.path(targets, rng.randrange(10_000))
        try:
            response = get(port, path, timeout=timeout)
        except Exception as error:  # noqa: BLE001 - every failure counts, none stops the run
            tally.fail(path, error)
            continue
        tally.record(page.key, response.status, response.seconds, path)


def run_load(
    port: int,
    targets: Targets,
    *,
    clients: int,
    duration: float,
    max_requests: int,
    timeout: float,
    seed: int,
) -> tuple[Tally, float]:
    tally = Tally()
    started = time.monotonic()
    deadline = started + duration
    threads = [
        threading.Thread(
            target=client,
            args=(port, targets, tally),
            kwargs=dict(
                deadline=deadline,
                max_requests=max_requests,
                timeout=timeout,
                seed=seed * 1000 + n,
            ),
            daemon=True,
        )
        for n in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        # A request in flight at the deadline may take up to `timeout` more.
        thread.join(timeout=duration + timeout + 5)
    return tally, time.monotonic() - started


def report(db: str, tally: Tally, elapsed: float, *, clients: int, workers: int | str) -> str:
    every = [ms for values in tally.latencies.values() for ms in values]
    done = len(every) + tally.statuses["exception"]
    lines = [
        f"### Load on {db}: {clients} clients, {elapsed:.0f} s, gunicorn {workers} workers",
        "",
        f"- requests: {done:,} in {elapsed:.1f} s = **{done / elapsed:.1f} requests/s**",
        f"- errors: **{len(tally.errors)}** (statuses: "
        + ", ".join(f"{status}: {n}" for status, n in sorted(tally.statuses.items(), key=str))
        + ")",
    ]
    if every:
        lines.append(
            f"- latency ms: p50 {percentile(every, 50):.0f}, p90 {percentile(every, 90):.0f}, "
            f"p95 {percentile(every, 95):.0f}, p99 {percentile(every, 99):.0f}"
            f", max {max(every):.0f}"
        )
    lines += ["", "| Page | requests | p50 ms | p95 ms | max ms |", "|---|---:|---:|---:|---:|"]
    for page in PAGE_TYPES:
        values = tally.latencies.get(page.key)
        if values:
            lines.append(
                f"| {page.label} | {len(values)} | {percentile(values, 50):.0f} "
                f"| {percentile(values, 95):.0f} | {max(values):.0f} |"
            )
    if tally.errors:
        lines += ["", "First errors:", *(f"- {error}" for error in tally.errors[:10])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60, help="seconds")
    parser.add_argument("--max-requests", type=int, default=200_000, help="stop after this many")
    parser.add_argument("--timeout", type=float, default=30, help="per-request timeout, seconds")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="gunicorn workers (default: config/gunicorn.conf.py's own default)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--reuse", action="store_true", help="keep a database that already holds --papers papers"
    )
    args = parser.parse_args(argv)
    if args.clients < 1 or args.duration <= 0 or args.max_requests < 1:
        parser.error("--clients, --duration and --max-requests must be positive")
    stop_on_sigterm()
    failed = False
    for db in DATABASES if args.db == "both" else (args.db,):
        prepared = prepare_database(db, args.papers, seed=args.seed, reuse=args.reuse)
        targets = sample_targets(prepared.url, seed=args.seed)
        env = server_env(prepared.url)
        with Gunicorn(env, workers=args.workers, log_name=f"gunicorn-load-{db}") as server:
            workers = len(server.worker_pids()) or "?"
            log(f"[{db}] gunicorn pid {server.pid}, {workers} workers, port {server.port}")
            log(f"[{db}] {args.clients} clients for {args.duration:.0f} s")
            tally, elapsed = run_load(
                server.port,
                targets,
                clients=args.clients,
                duration=args.duration,
                max_requests=args.max_requests,
                timeout=args.timeout,
                seed=args.seed,
            )
        print("\n" + report(db, tally, elapsed, clients=args.clients, workers=workers) + "\n")
        failed = failed or bool(tally.errors)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
