"""What the benchmark, load and fault scripts share: databases, the corpus file, gunicorn, HTTP.

Over 600 lines: every bench, load and fault script's shared plumbing (databases, corpus,
gunicorn, HTTP, figures); kept whole so that no script grows its own copy of a piece of it
(splitting databases, gunicorn and HTTP into modules is planned with issue 29).

The scripts themselves never import Django: every Django step runs as `manage.py` (or
`bench.query_counts`) in a child process with the environment a production server would get,
so one script can drive SQLite and PostgreSQL in turn.

Databases used (and dropped/recreated):
- SQLite: files under bench/out/ (gitignored);
- PostgreSQL: the databases named exactly `bench` (pages, imports, faults) and `bench_fetch` (the
  fetch benchmark) on postgres://postgres@127.0.0.1:5432. The `test` database and `test_*`
  databases belong to test runs and are never touched. BENCH_PG_DATABASE=bench_NAME in the
  environment names the pages' database instead (a name of one's own, so two people's runs on
  one PostgreSQL server never drop each other's database).
"""

from __future__ import annotations

import datetime
import hashlib
import http.client
import json
import math
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

from bench.generate_corpus import CORPUS_VERSION, write_jsonl
from operations.schedule import PROCESS_ENVIRONMENT

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BIN = Path(sys.executable).parent
PG_SERVER = "postgres://postgres@127.0.0.1:5432"


def bench_database_name(name: str) -> str:
    """The pages' PostgreSQL database: `bench` or a `bench_*` name of letters, digits and _."""
    if name != "bench" and not (name.startswith("bench_") and name.isidentifier()):
        raise SystemExit(
            f"BENCH_PG_DATABASE={name!r}: expected bench or bench_<letters, digits, _>"
        )
    return name


PG_BENCH_DATABASE = bench_database_name(os.environ.get("BENCH_PG_DATABASE") or "bench")
PG_FETCH_DATABASE = "bench_fetch"
# The only PostgreSQL databases a benchmark may drop.
PG_BULK_DATABASE = "bench_bulk"
PG_DATABASES = (PG_BENCH_DATABASE, PG_FETCH_DATABASE, PG_BULK_DATABASE)
DATABASES = ("sqlite", "postgres")
# Generated once per run: the servers need a key with DEBUG off, and nothing outlives the run.
_SECRET_KEY = secrets.token_urlsafe(50)

Log = Callable[[str], None]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- databases ----------------------------------------------------------------------------------


def database_url(db: str, name: str, *, pg_name: str = PG_BENCH_DATABASE) -> str:
    """URL of the benchmark database `name` (SQLite file stem; PostgreSQL uses `pg_name`, one of
    PG_DATABASES)."""
    if db == "sqlite":
        return f"sqlite:///{OUT / (name + '.sqlite3')}"
    if db == "postgres" and pg_name in PG_DATABASES:
        return f"{PG_SERVER}/{pg_name}"
    raise ValueError(f"unknown database {db!r} (expected sqlite or postgres)")


def sqlite_file(url: str) -> Path:
    return Path(urlsplit(url).path)


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def connect(url: str):
    """A DB-API connection to a benchmark database (autocommit on PostgreSQL)."""
    if _is_postgres(url):
        import psycopg

        return psycopg.connect(url, autocommit=True, connect_timeout=5)
    return sqlite3.connect(sqlite_file(url), timeout=30)


def query(url: str, sql: str, params: Sequence = ()) -> list[tuple]:
    """Rows of one query; `%s` placeholders work on both databases."""
    connection = connect(url)
    try:
        if not _is_postgres(url):
            sql = sql.replace("%s", "?")
        cursor = connection.cursor()
        cursor.execute(sql, params)
        return cursor.fetchall()
    finally:
        connection.close()


def import_record_path(url: str) -> Path:
    """Where the timing of the import that filled this database is kept (see prepare_database)."""
    if _is_postgres(url):
        name = "postgres-" + urlsplit(url).path.lstrip("/")
    else:
        name = sqlite_file(url).stem
    return OUT / f"import-{name}.json"


def reset_database(url: str) -> None:
    """Drop and recreate the benchmark database: an empty SQLite file or PostgreSQL `bench`,
    and forget its search index."""
    postgres = _is_postgres(url)
    name = urlsplit(url).path.lstrip("/") if postgres else ""
    # A guard against ever pointing this at the test databases other people use: checked
    # before anything of the benchmark's own is deleted.
    if postgres and name not in PG_DATABASES:
        raise SystemExit(f"refusing to drop database {name!r}: only {' or '.join(PG_DATABASES)}")
    import_record_path(url).unlink(missing_ok=True)
    shutil.rmtree(search_index_dir(url), ignore_errors=True)
    if postgres:
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
        return
    path = sqlite_file(url)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)


def paper_count(url: str) -> int | None:
    """Papers in the database, None when it or its tables do not exist."""
    if not _is_postgres(url) and not sqlite_file(url).exists():
        return None
    try:
        return query(url, "SELECT COUNT(*) FROM papers_paper")[0][0]
    except Exception:  # noqa: BLE001 - a missing database or table both mean "not prepared"
        return None


def analyze(url: str) -> None:
    """Bring a freshly bulk-loaded database to its steady state, as autovacuum would.

    On PostgreSQL that is VACUUM ANALYZE, not ANALYZE alone: until a table is vacuumed its
    visibility map is empty and every index-only count (the facet counts) visits the heap.
    """
    connection = connect(url)
    try:
        connection.cursor().execute("VACUUM ANALYZE" if _is_postgres(url) else "ANALYZE")
        if not _is_postgres(url):
            connection.commit()
    finally:
        connection.close()


# --- Django as a child process ------------------------------------------------------------------


def search_index_dir(url: str) -> Path:
    """The search index directory of the servers on the database `url` (one per database)."""
    digest = hashlib.sha256(url.encode()).hexdigest()[:10]
    return OUT / f"search-index-{digest}"


def server_env(url: str) -> dict[str, str]:
    """The environment of a production server (DEBUG off) on the given database, with what
    its systemd unit adds (operations.schedule.PROCESS_ENVIRONMENT)."""
    env = dict(os.environ)
    env.pop("DJANGO_TEST_DB_NAME", None)
    name, value = PROCESS_ENVIRONMENT.split("=", 1)
    env[name] = value
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=_SECRET_KEY,
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=url,
        SEARCH_INDEX_DIR=str(search_index_dir(url)),
        # "testserver" lets bench.query_counts use Django's test client in-process.
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        DJANGO_LOG_LEVEL=env.get("DJANGO_LOG_LEVEL", "ERROR"),
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict[str, str], *args: str, quiet: bool = True) -> subprocess.CompletedProcess:
    command = [sys.executable, "manage.py", *args]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(
            f"`manage.py {' '.join(args)}` failed (exit {result.returncode}):\n"
            f"{result.stdout[-2000:]}{result.stderr[-4000:]}"
        )
    if not quiet:
        sys.stderr.write(result.stdout)
    return result


@dataclass
class Measured:
    """A manage.py command's output, wall time and peak resident memory."""

    stdout: str
    seconds: float
    peak_rss_mb: float


def manage_measured(env: dict[str, str], *args: str) -> Measured:
    """Run `manage.py` like manage(), timing it and reading its own peak RSS (os.wait4 gives
    the rusage of that one child, not the largest of every child so far)."""
    command = [sys.executable, "manage.py", *args]
    started = time.perf_counter()
    # Output to files, not pipes: the child is reaped by wait4 itself, not by communicate().
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(
            f"`manage.py {' '.join(args)}` failed (exit {process.returncode}):\n"
            f"{stdout[-2000:]}{stderr[-4000:]}"
        )
    # ru_maxrss is in kilobytes on Linux.
    return Measured(stdout, seconds, usage.ru_maxrss / 1024)


def corpus_file(papers: int, seed: int, *, say: Log = log) -> Path:
    """The generated corpus for (papers, seed), written once and reused afterwards."""
    path = OUT / f"corpus-v{CORPUS_VERSION}-{papers}-seed{seed}.jsonl"
    if not path.exists():
        started = time.perf_counter()
        write_jsonl(path, papers, seed=seed)
        say(f"generated {papers:,} papers in {time.perf_counter() - started:.1f} s -> {path}")
    return path


def rewritten_copy(path: Path) -> Path:
    """The same records under the same file name (so the same source) in another folder, with
    one more blank line: not byte for byte the file imported, so the import reads it."""
    copy = OUT / "rewritten" / path.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    with path.open("rb") as source, copy.open("wb") as target:
        shutil.copyfileobj(source, target)
        target.write(b"\n")
    return copy


@dataclass
class Prepared:
    db: str
    url: str
    papers: int
    import_seconds: float | None
    import_summary: str = ""
    # When the database was reused: when and at which commit its import was timed.
    reused_from: str = ""
    # Building (or catching up) the search index after the import.
    index_seconds: float | None = None
    # The first import's peak resident memory, and an unchanged re-import's time: of the very
    # same file (its hash matches: not read), and of the same records in a rewritten file
    # (read, each record's digest compared).
    import_rss_mb: float | None = None
    reimport_seconds: float | None = None
    record_reimport_seconds: float | None = None

    @property
    def papers_per_second(self) -> float | None:
        if not self.import_seconds:
            return None
        return self.papers / self.import_seconds


def prepare_database(
    db: str, papers: int, *, seed: int = 1, reuse: bool = False, say: Log = log
) -> Prepared:
    """A database holding the generated corpus: fresh, migrated, imported (timed), analysed.

    With `reuse`, a database this function filled with the same corpus (papers, seed) is kept:
    it is migrated (new indexes, triggers) and analysed again, and the import timing recorded
    when it was filled is reported.
    """
    url = database_url(db, f"bench-{papers}")
    env = server_env(url)
    record_path = import_record_path(url)
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    corpus = f"corpus-v{CORPUS_VERSION}-{papers}-seed{seed}"
    if reuse and record.get("corpus") == corpus and paper_count(url) == papers:
        say(f"[{db}] reusing the database imported at {record['when']} (commit {record['commit']})")
        manage(env, "migrate", "--noinput")
        manage(env, "createcachetable")
        analyze(url)
        prepared = Prepared(
            db,
            url,
            papers,
            record["seconds"],
            record["summary"],
            reused_from=f"{record['when']}, commit {record['commit']}",
            import_rss_mb=record.get("rss_mb"),
            reimport_seconds=record.get("reimport_seconds"),
            record_reimport_seconds=record.get("record_reimport_seconds"),
        )
    else:
        path = corpus_file(papers, seed, say=say)
        say(f"[{db}] fresh database, migrate")
        reset_database(url)
        manage(env, "migrate", "--noinput")
        manage(env, "createcachetable")
        say(f"[{db}] importing {papers:,} papers")
        first = manage_measured(env, "import_papers", str(path))
        seconds = first.seconds
        lines = first.stdout.strip().splitlines()
        # "Total: ..." (the last line names the import run)
        summary = next((line for line in lines if line.startswith("Total:")), "")
        prepared = Prepared(db, url, papers, seconds, summary, import_rss_mb=first.peak_rss_mb)
        say(
            f"[{db}] imported in {seconds:.1f} s ({papers / seconds:,.0f} papers/s, "
            f"peak RSS {first.peak_rss_mb:,.0f} MB): {summary}"
        )
        again = manage_measured(env, "import_papers", str(path))
        prepared.reimport_seconds = again.seconds
        say(
            f"[{db}] unchanged re-import (the same file) in {again.seconds:.1f} s "
            f"({papers / again.seconds:,.0f} papers/s)"
        )
        rewritten = rewritten_copy(path)
        reread = manage_measured(env, "import_papers", str(rewritten))
        rewritten.unlink()
        prepared.record_reimport_seconds = reread.seconds
        say(
            f"[{db}] unchanged re-import (the same records, file rewritten) in "
            f"{reread.seconds:.1f} s ({papers / reread.seconds:,.0f} papers/s)"
        )
        analyze(url)
        when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        record = dict(
            corpus=corpus,
            seconds=seconds,
            summary=summary,
            commit=git_commit(),
            when=when,
            rss_mb=first.peak_rss_mb,
            reimport_seconds=again.seconds,
            record_reimport_seconds=reread.seconds,
        )
        record_path.write_text(json.dumps(record))
    # As `make serve` does: the search index is built before the server answers.
    started = time.perf_counter()
    manage(env, "update_search_index")
    prepared.index_seconds = time.perf_counter() - started
    say(f"[{db}] search index up to date in {prepared.index_seconds:.1f} s")
    manage(env, "collectstatic", "--noinput")
    return prepared


def prepared_env(db: str, papers: int, *, reuse: bool) -> dict[str, str]:
    """A production environment on a database holding the corpus. With `reuse`, any benchmark
    database already holding that many papers will do (exports and recommendations only read
    them): it is migrated and its index caught up, without the import timings
    prepare_database records."""
    url = database_url(db, f"bench-{papers}")
    env = server_env(url)
    if reuse and paper_count(url) == papers:
        log(f"[{db}] reusing the database of {papers:,} papers")
        manage(env, "migrate", "--noinput")
        manage(env, "update_search_index")
        return env
    return server_env(prepare_database(db, papers, reuse=reuse).url)


# --- gunicorn -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Gunicorn:
    """A real gunicorn (config/gunicorn.conf.py) on a free loopback port, stopped on exit.

    It runs in its own session so stopping it signals exactly its master and workers.
    """

    def __init__(
        self,
        env: dict[str, str],
        *,
        workers: int | None = 2,
        log_name: str = "gunicorn",
        ready_when_any_answer: bool = False,
    ):
        self.env = dict(env)
        # Normally "/" must answer 200; a server started without its database answers at all.
        self.ready_when_any_answer = ready_when_any_answer
        self.workers = workers
        self.port = free_port()
        self.log_path = OUT / f"{log_name}.log"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> Gunicorn:
        OUT.mkdir(parents=True, exist_ok=True)
        bind = f"127.0.0.1:{self.port}"
        command = [str(BIN / "gunicorn"), "--bind", bind]
        config = ROOT / "config" / "gunicorn.conf.py"
        if config.exists():
            command += ["--config", str(config)]
        self.env["GUNICORN_BIND"] = bind
        if self.workers:
            self.env["WEB_CONCURRENCY"] = str(self.workers)
            command += ["--workers", str(self.workers)]
        command.append("config.wsgi")
        with self.log_path.open("w") as log_file:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"gunicorn exited early; see {self.log_path}:\n{self.log_tail()}")
            try:
                status = get(self.port, "/", timeout=10).status
                if status == 200 or self.ready_when_any_answer:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise SystemExit(f"gunicorn did not answer within {timeout} s; see {self.log_path}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text().splitlines()[-lines:])
        except OSError:
            return ""

    @property
    def pid(self) -> int:
        return self.process.pid

    def worker_pids(self) -> list[int]:
        """Current worker processes (children of the master)."""
        try:
            children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text()
        except OSError:
            return []
        return sorted(int(pid) for pid in children.split())

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if not self.running():
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        except ProcessLookupError:
            pass

    def __enter__(self) -> Gunicorn:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so `finally` blocks stop servers as Ctrl-C does."""

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


# --- HTTP ---------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    body: bytes
    seconds: float


def get(
    port: int, path: str, *, timeout: float = 30, headers: Mapping[str, str] | None = None
) -> Response:
    """GET http://127.0.0.1:port/path on a new connection; time until the body is read.

    `headers` are sent too (e.g. a session cookie), overriding the defaults of the same name."""
    sent = {"Accept": "text/html", "Connection": "close", **(headers or {})}
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers=sent)
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    return Response(response.status, body, time.perf_counter() - started)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0-100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


# --- what to request ----------------------------------------------------------------------------


@dataclass
class Targets:
    """Real ids and slugs from the database, so every request hits an existing page.

    40 search terms and 40 popular authors: the first 40 requests of each page type are 40
    distinct URLs, so no per-URL cache in the app answers a timed request that a warm-up or an
    earlier timed request already made (the unfiltered list is one URL by nature)."""

    popular_authors: list[int]
    tracks: list[str]
    venues: list[str]
    paper_ids: list[int]
    author_ids: list[int]
    terms: list[str] = field(default_factory=list)
    rare_terms: list[str] = field(default_factory=list)


def common_terms(count: int = 40) -> list[str]:
    """The commonest words of the synthetic abstracts that are not stop words (searching for a
    stop word finds nothing, which would be a misleadingly fast "search for a common term")."""
    from bench.generate_corpus import FIXTURES, STOP_WORDS, _vocabulary

    words, _ = _vocabulary(FIXTURES)
    terms = [w for w in words if w.islower() and len(w) >= 4 and w not in STOP_WORDS]
    return terms[:count]


def sample_targets(url: str, *, seed: int = 1, size: int = 200) -> Targets:
    import random

    rng = random.Random(seed)
    popular = query(
        url,
        "SELECT author_id FROM papers_authorship GROUP BY author_id "
        "ORDER BY COUNT(*) DESC, author_id LIMIT 40",
    )
    tags = query(url, "SELECT kind, slug FROM papers_tag WHERE kind IN ('track', 'venue')")
    paper_ids = [row[0] for row in query(url, "SELECT id FROM papers_paper")]
    low, high = query(url, "SELECT MIN(id), MAX(id) FROM papers_authorship")[0]
    # Authors reached the way readers reach them, through a random paper's author list: prolific
    # authors (long pages) turn up as often as they do on the site.
    picks = [rng.randint(low, high) for _ in range(size)]
    placeholders = ", ".join(["%s"] * len(picks))
    by_authorship = query(
        url,
        f"SELECT author_id FROM papers_authorship WHERE id IN ({placeholders})",  # noqa: S608
        picks,
    )
    author_ids = [row[0] for row in by_authorship]
    rng.shuffle(author_ids)
    sampled = rng.sample(paper_ids, min(40, len(paper_ids)))
    placeholders = ", ".join(["%s"] * len(sampled))
    sql = f"SELECT title FROM papers_paper WHERE id IN ({placeholders})"  # noqa: S608
    titles = query(url, sql, sampled)
    # The longest word of a random paper's title: a rarer term than the common ones.
    rare = [max(title.split(), key=len).strip(".,:;()").lower() for (title,) in titles if title]
    return Targets(
        popular_authors=[row[0] for row in popular],
        tracks=sorted(slug for kind, slug in tags if kind == "track"),
        venues=sorted(slug for kind, slug in tags if kind == "venue"),
        paper_ids=rng.sample(paper_ids, min(size, len(paper_ids))),
        author_ids=author_ids,
        terms=common_terms(),
        rare_terms=[term for term in rare if term.isalpha()] or common_terms(),
    )


@dataclass(frozen=True)
class PageType:
    """A kind of request timed. Its target is `target_ms` for p95, or, with `relative_to`, the
    p95 of that page type (timed in the same run) plus `target_ms`."""

    key: str
    label: str
    target_ms: float
    path: Callable[[Targets, int], str]
    relative_to: str = ""


def _pick(values: Sequence, index: int):
    return values[index % len(values)]


# Targets: issue 9 (every page p95 <= 50 ms at 100,000 papers, the paper page <= 25 ms).
PAGE_TYPES: tuple[PageType, ...] = (
    PageType("list", "List, unfiltered, with facet counts", 50, lambda t, i: "/"),
    PageType(
        "list_track_author",
        "List filtered by track + popular author",
        50,
        lambda t, i: f"/?track={_pick(t.tracks, i)}&author={_pick(t.popular_authors, i)}",
    ),
    PageType("search", "Search, common term", 50, lambda t, i: f"/?q={quote(_pick(t.terms, i))}"),
    # Issue 42: the JSON API's search, the same questions as "search" (timed right after it),
    # p95 within 10 ms of its p95.
    PageType(
        "api_search",
        "API search, common term (/api/v1/papers, a visitor)",
        10,
        lambda t, i: f"/api/v1/papers?q={quote(_pick(t.terms, i))}",
        relative_to="search",
    ),
    PageType(
        "search_facet",
        "Search, common term + track facet",
        50,
        lambda t, i: f"/?q={quote(_pick(t.terms, i))}&track={_pick(t.tracks, i // 5)}",
    ),
    PageType(
        "search_oral",
        "Search, common term + Oral",
        50,
        lambda t, i: f"/?q={quote(_pick(t.terms, i))}&track=oral",
    ),
    PageType(
        "search_rare",
        "Search, rare term + facets",
        50,
        lambda t, i: (
            f"/?q={quote(_pick(t.rare_terms, i))}&venue={_pick(t.venues, i)}"
            f"&track={_pick(t.tracks, i // 3)}"
        ),
    ),
    PageType(
        "paper",
        "Paper detail with similar papers (varying papers)",
        25,
        lambda t, i: f"/papers/{_pick(t.paper_ids, i)}/",
    ),
    PageType(
        "author",
        "Author page (varying authors)",
        150,
        lambda t, i: f"/authors/{_pick(t.author_ids, i)}/",
    ),
)


def query_counts(env: dict[str, str], paths: Sequence[str]) -> dict[str, tuple[int | None, float]]:
    """(SQL queries, cold milliseconds) of each path, from a fresh child process with Django's
    test client (queries None for a path that did not answer 200)."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.query_counts", *paths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"counting queries failed:\n{result.stderr[-4000:]}")
    if result.stderr.strip():
        log(result.stderr.strip()[-2000:])

    return {path: (queries, ms) for path, (queries, ms) in json.loads(result.stdout).items()}


def git_commit() -> str:
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return result.stdout.strip() or "unknown"
