"""Exports at 100,000 papers through gunicorn (issue 31): complete, refused, or prepared.

`python -m bench.export_bench [--papers 100000] [--db sqlite|postgres|both] [--reuse]`

For each database (filled by bench.harness.prepared_env), with gunicorn's 2 sync workers and
its 30 s timeout, DEBUG off:

1. **Writer speed**: a member exports the whole list in each format with the member limit
   raised to the catalogue (EXPORT_MAX_MEMBER=papers): time, size, entries/s, and the entries
   counted in the file as a reference manager would (every one must be there).
2. **Default limits**: the whole list as a visitor (refused, with the login message) and as a
   member (refused with "Prepare the export"); the member posts that form, `manage.py
   db_worker --batch` writes the file, the member downloads it from "your exports": entries
   counted again.
3. **Under load**: 6 clients loop whole-list exports (6 members with the raised limit, then 6
   visitors from one address at the default limit) while one client times list pages for
   --seconds (60), each a distinct URL (a search term with a track or an author facet);
   p50/p95 of those pages, and what the exporters got (200 / 429 / 403).

Prints a Markdown report and writes it to bench/out/exports.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import http.client
import io
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from bench.harness import (
    DATABASES,
    OUT,
    Gunicorn,
    get,
    git_commit,
    log,
    manage,
    percentile,
    prepared_env,
    sample_targets,
    stop_on_sigterm,
)

FORMATS = ("bib", "ris", "json", "csv")
LOAD_CLIENTS = 6
_SESSIONS_SCRIPT = """
from django.contrib.auth import get_user_model
from django.test import Client
names = [f"bench-exporter-{n}" for n in range({count})]
for name in names:
    user, _ = get_user_model().objects.get_or_create(username=name)
    client = Client()
    client.force_login(user)
    print(client.cookies["sessionid"].value)
"""


def count_entries(extension: str, body: bytes) -> int:
    """How many papers a reference manager would find in the file."""
    text = body.decode("utf-8-sig")
    if extension == "bib":
        return len(re.findall(r"^@inproceedings\{", text, flags=re.MULTILINE))
    if extension == "ris":
        return text.count("\r\nER  - ") + text.startswith("ER  - ")
    if extension == "json":
        return len(json.loads(text))
    return sum(1 for _ in csv.reader(io.StringIO(text))) - 1


def sessions(env: dict[str, str], count: int) -> list[str]:
    """Session keys of `count` member accounts (created if missing)."""
    result = manage(env, "shell", "-c", _SESSIONS_SCRIPT.replace("{count}", str(count)))
    # Django 5.2's shell first says how many models it imported: the keys are the last lines.
    keys = result.stdout.split()[-count:]
    assert len(keys) == count, result.stdout
    return keys


def member(session: str) -> dict[str, str]:
    return {"Cookie": f"sessionid={session}"}


def request(
    port: int, method: str, path: str, headers: dict[str, str], body: str | None = None
) -> tuple[int, bytes, dict[str, str]]:
    """(status, body, cookies set) of one request on a new connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        content = response.read()
        cookies = dict(
            cookie.split(";")[0].split("=", 1)
            for cookie in response.headers.get_all("Set-Cookie") or []
        )
        return response.status, content, cookies
    finally:
        connection.close()


def prepare(port: int, session: str, path: str) -> tuple[int, bool, int]:
    """A member asks for `path`, is refused with the "Prepare the export" form and posts it:
    (status of the export, whether the form was offered, status of the POST)."""
    status, page, cookies = request(port, "GET", path, member(session))
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if token is None:
        return status, False, 0
    posted, _, _ = request(
        port,
        "POST",
        "/exports/prepare/",
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={cookies.get('csrftoken', '')}",
            "Referer": f"http://127.0.0.1:{port}/",
        },
        urlencode({"path": path, "csrfmiddlewaretoken": token.group(1).decode()}),
    )
    return status, True, posted


# --- 1. Writer speed --------------------------------------------------------------------------


def whole_list(port: int, session: str, papers: int) -> list[str]:
    rows = ["| format | status | seconds | MB | entries in the file | entries/s | complete? |"]
    rows.append("|---|---:|---:|---:|---:|---:|---|")
    for extension in FORMATS:
        response = get(port, f"/export/papers.{extension}", timeout=60, headers=member(session))
        entries = count_entries(extension, response.body) if response.status == 200 else 0
        rate = entries / response.seconds if entries else 0
        verdict = "yes" if entries == papers and response.seconds < 30 else "NO"
        rows.append(
            f"| {extension} | {response.status} | {response.seconds:.1f} | "
            f"{len(response.body) / 1e6:.1f} | {entries:,} | {rate:,.0f} | {verdict} |"
        )
        log(rows[-1])
    return rows


# --- 2. Default limits ------------------------------------------------------------------------


def refused_and_prepared(port: int, env: dict[str, str], session: str, papers: int) -> list[str]:
    rows = ["| format | visitor | member | prepared in the background | entries | complete? |"]
    rows.append("|---|---|---|---:|---:|---|")
    for extension in FORMATS:
        path = f"/export/papers.{extension}"
        visitor = get(port, path, headers={"Cookie": ""})
        said = "log in" if b"Log in</a> to export more" in visitor.body else "no message"
        refused, offered, posted = prepare(port, session, path)
        started = time.perf_counter()
        manage(env, "db_worker", "--batch", "--no-startup-delay")
        seconds = time.perf_counter() - started
        page = get(port, "/exports/", headers=member(session)).body.decode()
        link = re.search(r'href="(/exports/(\d+)/download/)"', page)
        entries = 0
        if link:
            download = get(port, link.group(1), timeout=120, headers=member(session))
            entries = count_entries(extension, download.body)
        rows.append(
            f"| {extension} | {visitor.status}, {said} | {refused}, "
            f"{'offered' if offered else 'not offered'}, POST {posted} | {seconds:.1f} s | "
            f"{entries:,} | {'yes' if entries == papers else 'NO'} |"
        )
        log(rows[-1])
    return rows


# --- 3. Under load ----------------------------------------------------------------------------


@dataclass
class Exporters:
    statuses: dict[int, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def loop(self, port: int, headers: dict[str, str], offset: int) -> None:
        n = offset
        while not self.stop.is_set():
            path = f"/export/papers.{FORMATS[n % len(FORMATS)]}"
            n += 1
            try:
                status = get(port, path, timeout=60, headers=headers).status
            except OSError:
                status = 0
            with self.lock:
                self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == 429:
                time.sleep(1)  # as Retry-After asks, roughly


def list_pages(targets) -> Iterator[str]:
    """Distinct list page URLs: each search term with each track, then with each author."""
    for term in targets.terms:
        for track in targets.tracks:
            yield f"/?q={quote(term)}&track={track}"
    for term in targets.terms:
        for author in targets.popular_authors:
            yield f"/?q={quote(term)}&author={author}"


def under_load(port: int, targets, client_headers: list[dict[str, str]], seconds: float) -> str:
    exporters = Exporters()
    threads = [
        threading.Thread(target=exporters.loop, args=(port, headers, n), daemon=True)
        for n, headers in enumerate(client_headers)
    ]
    for thread in threads:
        thread.start()
    time.sleep(2)  # the exports are under way
    timings, errors = [], 0
    deadline = time.monotonic() + seconds
    for path in list_pages(targets):
        if time.monotonic() > deadline:
            break
        try:
            response = get(port, path, timeout=60)
        except OSError:
            errors += 1
            continue
        if response.status != 200:
            errors += 1
        timings.append(response.seconds * 1000)
    exporters.stop.set()
    for thread in threads:
        thread.join(timeout=90)
    got = ", ".join(f"{status}: {n}" for status, n in sorted(exporters.statuses.items()))
    p95 = percentile(timings, 95)
    return (
        f"{len(timings)} list pages (distinct URLs): p50 {percentile(timings, 50):.0f} ms, "
        f"p95 **{p95:.0f} ms**, max {max(timings):.0f} ms, {errors} errors "
        f"({'met' if p95 < 500 and not errors else 'NOT met'}: p95 < 500 ms); "
        f"exports answered {got}"
    )


def run(db: str, papers: int, reuse: bool, seconds: float) -> str:
    env = prepared_env(db, papers, reuse=reuse)
    manage(env, "collectstatic", "--noinput")
    keys = sessions(env, LOAD_CLIENTS + 1)
    targets = sample_targets(env["DATABASE_URL"])
    name = {"sqlite": "SQLite", "postgres": "PostgreSQL"}[db]
    sections = [f"### {name}"]
    raised = dict(env, EXPORT_MAX_MEMBER=str(papers))
    with Gunicorn(raised, workers=2, log_name=f"gunicorn-exports-{db}") as server:
        log(f"[{db}] whole list as a member, limit raised to {papers:,}")
        sections += ["", f"Whole list ({papers:,} papers) as a member, EXPORT_MAX_MEMBER={papers}:"]
        sections += ["", *whole_list(server.port, keys[0], papers)]
        log(f"[{db}] {LOAD_CLIENTS} members exporting the whole list while pages are timed")
        loaded = under_load(server.port, targets, [member(k) for k in keys[1:]], seconds)
        sections += ["", f"{LOAD_CLIENTS} members looping whole-list exports: {loaded}"]
    with Gunicorn(env, workers=2, log_name=f"gunicorn-exports-{db}") as server:
        log(f"[{db}] default limits: refused, then prepared in the background")
        sections += ["", "Default limits (visitors 5,000, members 20,000):", ""]
        sections += refused_and_prepared(server.port, env, keys[0], papers)
        visitors = [{"Cookie": ""} for _ in range(LOAD_CLIENTS)]
        loaded = under_load(server.port, targets, visitors, seconds)
        sections += ["", f"{LOAD_CLIENTS} visitors looping whole-list exports: {loaded}"]
    return "\n".join(sections)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--reuse", action="store_true", help="keep a database already filled")
    parser.add_argument(
        "--seconds", type=float, default=60, help="how long list pages are timed under load"
    )
    args = parser.parse_args(argv)
    stop_on_sigterm()
    started = datetime.datetime.now(datetime.UTC)
    databases = DATABASES if args.db == "both" else (args.db,)
    sections = [run(db, args.papers, args.reuse, args.seconds) for db in databases]
    command = "python -m bench.export_bench " + " ".join(argv or sys.argv[1:])
    report = "\n".join(
        [
            f"## Exports: {args.papers:,} papers ({started:%Y-%m-%d %H:%M} UTC, "
            f"commit {git_commit()})",
            "",
            f"Command: `{command.strip()}`. gunicorn 2 sync workers, timeout 30 s, DEBUG off; "
            "entries are counted in each file as a reference manager reads it.",
            "",
            *sections,
            "",
        ]
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "exports.md").write_text(report)
    print("\n" + report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
