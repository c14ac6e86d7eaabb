"""Fault run: `kill -9` an import halfway; the database must hold the old state, never half.

For each database (SQLite file under bench/out/, PostgreSQL database `bench`):
1. fresh database, migrate, import an "old" corpus of --old papers; take a snapshot (row counts
   of every catalogue table and a checksum over papers, authorships and paper tags);
2. start `import_papers` of a "new" corpus of --papers records (the old papers with revised
   titles plus new ones) under a pseudo-terminal, so its progress bar is drawn, and SIGKILL it
   once the bar passes --kill-at (default 50%) of the load;
3. check the database equals the old snapshot exactly;
4. re-run the import to completion and check the new state: every paper of the new file with
   its title and author list, and the expected row counts.

    make faults                      (runs this, then bench.fault_db_down)
    python -m bench.fault_kill_import --db both --old 5000 --papers 100000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.generate_corpus import generate_records
from bench.harness import (
    DATABASES,
    OUT,
    ROOT,
    connect,
    database_url,
    log,
    manage,
    query,
    reset_database,
    server_env,
    sqlite_file,
    stop_on_sigterm,
)
from papers.text import normalize_author_name  # plain Python: no Django set-up needed

_PROGRESS = re.compile(r"(\d+)/(\d+)")
TABLES = ("papers_paper", "papers_author", "papers_authorship", "papers_tag", "papers_papertag")


@dataclass(frozen=True)
class Snapshot:
    counts: dict[str, int]
    checksum: str

    def describe(self) -> str:
        counts = ", ".join(f"{table.split('_')[1]} {n:,}" for table, n in self.counts.items())
        return f"{counts}; checksum {self.checksum[:16]}"


def _digest(rows) -> str:
    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda row: tuple("" if v is None else str(v) for v in row)):
        digest.update(json.dumps(row, default=str, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def snapshot(url: str) -> Snapshot:
    """Row counts and a checksum of the catalogue's content (sorted in Python: same on both DBs)."""
    counts = {table: query(url, f"SELECT COUNT(*) FROM {table}")[0][0] for table in TABLES}  # noqa: S608
    papers = query(
        url,
        "SELECT forum_id, title, abstract, author_names, forum_url, pdf_url FROM papers_paper",
    )
    authorships = query(
        url,
        "SELECT p.forum_id, s.position, a.normalized_name, COALESCE(a.openreview_id, '') "
        "FROM papers_authorship s "
        "JOIN papers_paper p ON p.id = s.paper_id JOIN papers_author a ON a.id = s.author_id",
    )
    paper_tags = query(
        url,
        "SELECT p.forum_id, t.kind, t.key FROM papers_papertag pt "
        "JOIN papers_paper p ON p.id = pt.paper_id JOIN papers_tag t ON t.id = pt.tag_id",
    )
    checksum = _digest(
        [("paper", *row) for row in papers]
        + [("authorship", *row) for row in authorships]
        + [("tag", *row) for row in paper_tags]
    )
    return Snapshot(counts, checksum)


def write_corpora(old: int, papers: int, seed: int) -> tuple[Path, Path, list[dict]]:
    """The old corpus, and the new one: the old papers retitled plus new papers up to `papers`."""
    OUT.mkdir(parents=True, exist_ok=True)
    old_records = list(generate_records(old, seed=seed))
    old_ids = {record["forum_id"] for record in old_records}
    revised = [{**record, "title": record["title"] + " (Revised)"} for record in old_records]
    new_only = (r for r in generate_records(papers, seed=seed + 1) if r["forum_id"] not in old_ids)
    new_records = revised + [r for _, r in zip(range(papers - old), new_only, strict=False)]
    old_path = OUT / f"fault-old-{old}-seed{seed}.jsonl"
    new_path = OUT / f"fault-new-{papers}-seed{seed}.jsonl"
    for path, records in ((old_path, old_records), (new_path, new_records)):
        with path.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return old_path, new_path, new_records


def expected_state(records: list[dict]) -> tuple[str, int, int, int]:
    """Checksum of (forum id, title, author list) and authorship/paper-tag/author counts."""
    rows = [(r["forum_id"], r["title"], ", ".join(r["authors"])) for r in records]
    names = {normalize_author_name(name) for r in records for name in r["authors"]}
    return (
        _digest(rows),
        sum(len(r["authors"]) for r in records),
        sum(len(r["tags"]) for r in records),
        len(names),
    )


def kill_import_midway(
    env: dict[str, str], path: Path, *, kill_at: float, timeout: float
) -> tuple[bool, str]:
    """Run the import under a pseudo-terminal and SIGKILL it at `kill_at` of its progress.

    Returns (killed, what happened). The progress bar counts records loaded inside the import's
    single transaction, so a kill past 0% is a kill in the middle of the write.
    """
    command = [sys.executable, "manage.py", "import_papers", str(path), "--format", "jsonl"]
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,
    )
    os.close(terminal)
    started = time.monotonic()
    output = ""
    try:
        while time.monotonic() - started < timeout:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536).decode(errors="replace")
                except OSError:  # the import closed the terminal: it has exited
                    chunk = ""
                output = (output + chunk)[-4000:]
                progress = _PROGRESS.findall(output)
                if progress:
                    done, total = map(int, progress[-1])
                    if total and done / total >= kill_at and done < total:
                        os.kill(process.pid, signal.SIGKILL)
                        process.wait()
                        seconds = time.monotonic() - started
                        return True, f"killed at {done:,}/{total:,} records after {seconds:.1f} s"
                if not chunk and process.poll() is not None:
                    break
            elif process.poll() is not None:
                break
        else:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return True, f"no progress past {kill_at:.0%} within {timeout:.0f} s; killed then"
        return (
            False,
            f"import exited (status {process.returncode}) before the kill: {output[-300:]}",
        )
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        os.close(controller)


def wait_for_orphans(url: str, timeout: float = 60) -> str:
    """PostgreSQL: wait until the killed client's server backend has rolled back and gone.

    The server notices a dead client only when it next talks to it; until then the orphan
    holds its locks and would make the re-run wait. After `timeout` it is terminated.
    """
    if not url.startswith("postgres"):
        return ""
    sql = (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not query(url, sql):
            return "orphaned backend gone"
        time.sleep(0.5)
    connection = connect(url)
    try:
        for (pid,) in connection.execute(sql).fetchall():
            connection.execute("SELECT pg_terminate_backend(%s)", (pid,))
    finally:
        connection.close()
    return f"orphaned backend terminated after {timeout:.0f} s"


def run_one(db: str, args, old_path: Path, new_path: Path, new_records: list[dict]) -> bool:
    url = database_url(db, "fault-import")
    env = server_env(url)
    log(f"[{db}] fresh database, migrate, import the old corpus ({args.old:,} papers)")
    reset_database(url)
    manage(env, "migrate", "--noinput")
    manage(env, "import_papers", str(old_path), "--format", "jsonl")
    before = snapshot(url)
    log(f"[{db}] old state: {before.describe()}")

    log(f"[{db}] importing {len(new_records):,} records, kill -9 at {args.kill_at:.0%}")
    killed, what = kill_import_midway(env, new_path, kill_at=args.kill_at, timeout=args.timeout)
    log(f"[{db}] {what}")
    orphan_note = wait_for_orphans(url)
    # Evidence that SQLite really was cut off mid-write: a WAL or rollback journal left behind.
    leftovers = []
    if db == "sqlite":
        for suffix in ("-wal", "-journal"):
            path = Path(f"{sqlite_file(url)}{suffix}")
            if path.exists() and path.stat().st_size:
                leftovers.append(f"{path.name} of {path.stat().st_size:,} bytes")
    after_kill = snapshot(url)
    old_intact = killed and after_kill == before
    log(f"[{db}] re-running the import to completion")
    started = time.perf_counter()
    rerun = manage(env, "import_papers", str(new_path), "--format", "jsonl")
    rerun_seconds = time.perf_counter() - started
    final = snapshot(url)
    checksum, authorships, paper_tags, authors = expected_state(new_records)
    rows = query(url, "SELECT forum_id, title, author_names FROM papers_paper")
    new_complete = (
        final.counts["papers_paper"] == len(new_records)
        and _digest(rows) == checksum
        and final.counts["papers_authorship"] == authorships
        and final.counts["papers_papertag"] == paper_tags
        and final.counts["papers_author"] == authors
    )
    name = {"sqlite": "SQLite", "postgres": "PostgreSQL"}[db]
    print(
        "\n".join(
            [
                f"### Killed import on {name}",
                f"- old state: {before.describe()}",
                f"- {what}" + (f"; {orphan_note}" if orphan_note else ""),
                f"- after kill -9: {after_kill.describe()}"
                + (f" (left {', '.join(leftovers)}, recovered on open)" if leftovers else ""),
                f"- old state intact: **{'yes' if old_intact else 'NO'}**",
                f"- re-run: {rerun.stdout.strip().splitlines()[-1]} in {rerun_seconds:.1f} s",
                f"- final state: {final.describe()}",
                f"- new state complete (every paper, title, author list, row counts): "
                f"**{'yes' if new_complete else 'NO'}**",
                "",
            ]
        ),
        flush=True,
    )
    return old_intact and new_complete


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--old", type=int, default=5000, help="papers imported before the kill")
    parser.add_argument("--papers", type=int, default=100_000, help="records of the killed import")
    parser.add_argument("--kill-at", type=float, default=0.5, help="fraction of the load, 0-1")
    parser.add_argument("--timeout", type=float, default=900, help="kill anyway after this many s")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if not 0 < args.kill_at < 1 or not 0 < args.old < args.papers:
        parser.error("need 0 < --kill-at < 1 and 0 < --old < --papers")
    stop_on_sigterm()
    old_path, new_path, new_records = write_corpora(args.old, args.papers, args.seed)
    results = {
        db: run_one(db, args, old_path, new_path, new_records)
        for db in (DATABASES if args.db == "both" else (args.db,))
    }
    print(
        "Killed import: "
        + ", ".join(f"{db} {'PASS' if ok else 'FAIL'}" for db, ok in results.items())
    )
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
