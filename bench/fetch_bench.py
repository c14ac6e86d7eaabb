"""Fetch benchmark: papers/s of `manage.py fetch_openreview` and `fetch_arxiv` against the local
stand-ins of OpenReview and arXiv (bench/standins.py), on fresh databases.

For each database (a SQLite file under bench/out/, PostgreSQL `bench_fetch`): drop and create
it, migrate, start the stand-in (a venue of 3,200 notes, two in three with reviews, a meta-review
and a decision; an arXiv query of 2,200 entries), then time each command as a child process,
as an operator runs it, twice: the first run imports everything, the second finds it unchanged.
Wall time of the process, Django's start-up included. No misbehaviour is switched on (no 429,
503 or slow answer): the figure is the app's rate, not the stand-in's waits; the tests check
the waits. ARXIV_API_DELAY=0: the real arXiv asks 3 s between calls, which at 100 entries a
call bounds a real fetch to about 33 papers/s whatever this machine does.

    make bench-fetch                               # both databases
    python -m bench.fetch_bench --db sqlite --notes 500 --entries 300

`make bench` (bench.run_bench) runs the same measurement for the databases it ran, after its
pages (about 15 s a database; --no-fetch leaves it out).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
from dataclasses import dataclass

from bench.harness import (
    DATABASES,
    OUT,
    PG_FETCH_DATABASE,
    database_url,
    git_commit,
    log,
    manage,
    manage_measured,
    paper_count,
    reset_database,
    server_env,
    stop_on_sigterm,
)
from bench.standins import (
    ARXIV_QUERY,
    DEFAULT_ENTRIES,
    DEFAULT_NOTES,
    VENUE,
    StandIn,
)

NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


@dataclass
class Run:
    command: str
    papers: int  # papers the report counts (created, updated, unchanged, conflicts)
    seconds: float
    requests: int  # answered by the stand-in
    summary: str  # the report's total line

    @property
    def rate(self) -> float:
        return self.papers / self.seconds


_TOTAL = re.compile(r"Total: (\d+) created, (\d+) updated, (\d+) unchanged, (\d+) conflicts")


def _total(stdout: str) -> tuple[int, str]:
    """(papers the report counts, its total line). Counted from the report, not from what
    the stand-in holds: an arXiv run stopping at a known page is timed for the papers it saw."""
    found = _TOTAL.search(stdout)
    if found is None:
        raise SystemExit(f"no report total in the command's output:\n{stdout[-2000:]}")
    line = next(line for line in stdout.splitlines() if line.startswith("Total: "))
    return sum(int(number) for number in found.groups()), line


def measure(db: str, *, notes: int = DEFAULT_NOTES, entries: int = DEFAULT_ENTRIES) -> list[Run]:
    """Both commands, twice each, on a fresh database `db`."""
    url = database_url(db, "fetch", pg_name=PG_FETCH_DATABASE)
    reset_database(url)
    env = server_env(url)
    manage(env, "migrate", "--noinput")
    runs: list[Run] = []
    with StandIn(notes=notes, entries=entries) as stand_in:
        env.update(stand_in.urls, ARXIV_API_DELAY="0")
        for args in (("fetch_openreview", VENUE), ("fetch_arxiv", ARXIV_QUERY)):
            for attempt in ("first", "unchanged"):
                before = stand_in.requests
                done = manage_measured(env, *args)
                papers, summary = _total(done.stdout)
                run = Run(
                    f"{args[0]} ({attempt})",
                    papers,
                    done.seconds,
                    stand_in.requests - before,
                    summary,
                )
                log(f"[{db}] {run.command}: {run.seconds:.1f} s, {run.rate:,.0f} papers/s")
                runs.append(run)
    # Nothing lost nor doubled: the two sources' papers are distinct.
    count = paper_count(url)
    if count != notes + entries:
        raise SystemExit(f"[{db}] {count} papers after the fetches, expected {notes + entries}")
    return runs


def table(db: str, runs: list[Run]) -> str:
    lines = [
        f"### Fetch on {NAMES[db]}",
        "",
        "| command | papers | requests | seconds | papers/s | report |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        lines.append(
            f"| {run.command} | {run.papers:,} | {run.requests} | {run.seconds:.1f} "
            f"| **{run.rate:,.0f}** | {run.summary} |"
        )
    return "\n".join(lines)


def sections(databases: tuple[str, ...], **sizes: int) -> list[str]:
    """A table per database, as bench.run_bench prints them after its pages."""
    return [table(db, measure(db, **sizes)) for db in databases]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--notes", type=int, default=DEFAULT_NOTES, help="OpenReview notes")
    parser.add_argument("--entries", type=int, default=DEFAULT_ENTRIES, help="arXiv entries")
    args = parser.parse_args(argv)
    stop_on_sigterm()
    databases = DATABASES if args.db == "both" else (args.db,)
    started = datetime.datetime.now(datetime.UTC)
    tables = sections(databases, notes=args.notes, entries=args.entries)
    command = "python -m bench.fetch_bench " + " ".join(argv if argv is not None else sys.argv[1:])
    report = "\n".join(
        [
            f"## Fetch benchmark ({started:%Y-%m-%d %H:%M} UTC, commit {git_commit()})",
            "",
            f"Command: `{command.strip()}` (`make bench-fetch`). Machine: {os.cpu_count()} CPU "
            "cores shared with other work. Local stand-ins of OpenReview API v2 and arXiv's API "
            "on loopback, no faults; ARXIV_API_DELAY=0 (the real arXiv asks 3 s between "
            "calls). Seconds: wall time of the manage.py process, start-up included; the "
            "second run of each finds every paper unchanged (arXiv's stops after its first "
            "page, all known). Papers: those the command's report counts.",
            "",
            *[section + "\n" for section in tables],
        ]
    )
    print("\n" + report, flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "fetch.md").write_text(report)
    log(f"written {OUT / 'fetch.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
