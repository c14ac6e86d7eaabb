"""Members first while a feed's bulk PDF run is under way (issue 38, point 2).

On a fresh database (SQLite under bench/out/, or PostgreSQL `bench_bulk`): import --links papers
whose PDF links point at a slow local PDF server (each PDF answered after --pdf-seconds), start
a bulk PDF run over all of them (pdfs.bulk.start_run, as the feed admin's "Download PDFs" does),
serve the site with gunicorn and run the task workers as `make run` does (one for the `default`
queue, one for `bulk`; --one-worker: a single worker serving both, the worst case). Once the run
is downloading, a member

1. uploads a PDF to a paper, through the upload form, and searches for a word found only in
   that PDF until the paper is listed: the seconds from the upload's POST to the first listing
   (goal: 60 s);
2. adds a paper by its arXiv link through the list page's "Add" POST (served by the local arXiv
   stand-in), following the page it is sent to until it opens the paper: the seconds from the
   POST to the paper (goal: 10 s).

Then it prints the figures and the run's progress (PDFs fetched while the member worked).

    python -m bench.bulk_run_bench                      # SQLite, two workers
    python -m bench.bulk_run_bench --one-worker --db postgres
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin

import httpx

from bench.harness import (
    OUT,
    PG_BULK_DATABASE,
    ROOT,
    Gunicorn,
    database_url,
    log,
    manage,
    query,
    reset_database,
    server_env,
    stop_on_sigterm,
)
from bench.standins import StandIn, arxiv_id_of
from tests.pdf_files import make_pdf

PASSWORD = "bench-member-password"  # noqa: S105 (a throwaway bench account)
UPLOAD_GOAL = 60.0
ADD_GOAL = 10.0
RATE_SECONDS = 30
# The word only the member's uploaded PDF holds.
MARKER = "zyxoquasar"


class SlowPdfServer:
    """Serves /pdf/<n>.pdf, a small valid PDF, after `seconds` (a slow publisher)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.served = 0
        body = make_pdf("A paper fetched in bulk.")
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                time.sleep(outer.seconds)
                outer.served += 1
                self.send_response(200 if self.path.startswith("/pdf/") else 404)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> SlowPdfServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def write_papers(path: Path, count: int, pdf_base: str) -> None:
    with path.open("w") as out:
        for number in range(count):
            record = {
                "title": f"Bulk paper number {number} on graph diffusion",
                "authors": [f"Author {number % 97}"],
                "abstract": f"Paper {number} of the bulk run benchmark, about diffusion.",
                "venue": "Bench 2026",
                "pdf": f"{pdf_base}/pdf/{number}.pdf",
            }
            out.write(json.dumps(record) + "\n")


def shell(env: dict[str, str], code: str) -> str:
    return manage(env, "shell", "-c", code).stdout.strip()


def start_workers(env: dict[str, str], one_worker: bool) -> list[subprocess.Popen]:
    queues = ["*"] if one_worker else ["default", "bulk"]
    workers = []
    for name in queues:
        log_file = (OUT / f"bulk-worker-{name.strip('*') or 'all'}.log").open("w")
        workers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "task_worker",
                    "--queue-name",
                    name,
                    "--no-startup-delay",
                    "--interval",
                    "0.5",
                ],
                cwd=ROOT,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    return workers


def run_progress(url: str) -> tuple[int, int, str]:
    rows = query(url, "SELECT papers_done, papers_failed, status FROM pdfs_pdfrun")
    return rows[0] if rows else (0, 0, "none")


def logged_in_client(base: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=60)
    token = csrf_of(client, "/accounts/login/")
    answer = client.post(
        "/accounts/login/",
        data={"username": "member", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    if answer.status_code != 302:
        raise SystemExit(f"log-in failed: {answer.status_code}")
    return client


def csrf_of(client: httpx.Client, path: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(path).text)
    if not found:
        raise SystemExit(f"no form on {path}")
    return found[1]


def upload_searchable(client: httpx.Client, paper_id: int, deadline: float) -> float | None:
    """Seconds from the upload's POST until a search for MARKER lists the paper."""
    token = csrf_of(client, f"/papers/{paper_id}/")
    pdf = make_pdf(f"The member's own copy mentions {MARKER} on its first page.")
    started = time.monotonic()
    answer = client.post(
        f"/papers/{paper_id}/pdf/upload/",
        data={"csrfmiddlewaretoken": token},
        files={"file": ("mine.pdf", pdf, "application/pdf")},
    )
    if answer.status_code != 302:
        raise SystemExit(f"upload failed: {answer.status_code}")
    while time.monotonic() - started < deadline:
        if f"/papers/{paper_id}/" in client.get("/", params={"q": MARKER}).text:
            return time.monotonic() - started
        time.sleep(0.5)
    return None


def add_by_link(client: httpx.Client, link: str, deadline: float) -> float | None:
    """Seconds from the "Add" POST until the page the member is sent to opens a paper."""
    token = csrf_of(client, f"/?{httpx.QueryParams({'q': link})}")
    started = time.monotonic()
    answer = client.post("/add-by-link/", data={"link": link, "csrfmiddlewaretoken": token})
    location = answer.headers.get("location", "")
    while time.monotonic() - started < deadline:
        if re.search(r"/papers/\d+/$", location):
            return time.monotonic() - started
        if not location:
            raise SystemExit(f"add by link answered {answer.status_code} without a redirect")
        answer = client.get(location, headers={"HX-Request": "true"})
        target = answer.headers.get("hx-redirect") or answer.headers.get("location")
        if target:
            location = urljoin(location, target)
            continue
        time.sleep(0.5)
    return None


def measure(db: str, links: int, pdf_seconds: float, one_worker: bool) -> dict:
    url = database_url(db, "bulk", pg_name=PG_BULK_DATABASE)
    reset_database(url)
    env = server_env(url)
    with ExitStack() as stack:
        pdfs = stack.enter_context(SlowPdfServer(pdf_seconds))
        arxiv = stack.enter_context(StandIn(notes=0, entries=5))
        env.update(arxiv.urls, PDF_FETCH_EXTRA_HOSTS=pdfs.base_url, ARXIV_API_DELAY="0")
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")
        records = OUT / f"bulk-papers-{links}.jsonl"
        write_papers(records, links, pdfs.base_url)
        manage(env, "import_papers", str(records))
        manage(env, "update_search_index")
        shell(
            env,
            "from django.contrib.auth.models import User; "
            f"User.objects.create_user('member', password='{PASSWORD}')",
        )
        started_run = shell(
            env,
            "from papers.models import Feed, Paper; from pdfs import bulk; "
            f"feed = Feed.objects.create(kind='arxiv', target='bench', pdf_run_cap={links}); "
            "ids = list(Paper.objects.values_list('pk', flat=True)); "
            "run = bulk.start_run(feed, paper_ids=ids); "
            "print(run.papers_total)",
        )
        log(f"{db}: bulk run of {started_run} PDFs started ({pdf_seconds} s each)")
        workers = start_workers(env, one_worker)
        stack.callback(lambda: [w.terminate() for w in workers])
        server = stack.enter_context(Gunicorn(env, log_name="bulk-gunicorn"))
        base = f"http://127.0.0.1:{server.port}"
        while run_progress(url)[0] < 20:  # the run is downloading
            time.sleep(0.5)
        before = run_progress(url)
        client = logged_in_client(base)
        # The member's paper is one the run would fetch last: not yet fetched.
        paper_id = int(query(url, "SELECT MAX(id) FROM papers_paper")[0][0])
        searchable = upload_searchable(client, paper_id, deadline=3 * UPLOAD_GOAL)
        added = add_by_link(client, f"https://arxiv.org/abs/{arxiv_id_of(2)}", 3 * ADD_GOAL)
        after = run_progress(url)
        # The run goes on beside the member: its rate over the next RATE_SECONDS.
        time.sleep(RATE_SECONDS)
        later = run_progress(url)
    return {
        "db": db,
        "workers": "one (*)" if one_worker else "default + bulk",
        "links": links,
        "searchable_s": searchable,
        "added_s": added,
        "run_before": before,
        "run_after": after,
        "run_rate": (later[0] + later[1] - after[0] - after[1]) / RATE_SECONDS,
    }


def figure(value: float | None, goal: float) -> str:
    if value is None:
        return f"not within {3 * goal:.0f} s (goal {goal:.0f} s): FAIL"
    return f"{value:.1f} s (goal {goal:.0f} s): {'met' if value <= goal else 'MISSED'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--links", type=int, default=3000)
    parser.add_argument("--pdf-seconds", type=float, default=2.0)
    parser.add_argument("--one-worker", action="store_true")
    args = parser.parse_args(argv)
    stop_on_sigterm()
    OUT.mkdir(parents=True, exist_ok=True)
    failed = False
    for db in ["sqlite", "postgres"] if args.db == "both" else [args.db]:
        result = measure(db, args.links, args.pdf_seconds, args.one_worker)
        print(
            f"{db}, workers {result['workers']}, a bulk run of {result['links']:,} PDF links "
            f"({args.pdf_seconds} s each) in progress:\n"
            f"  upload searchable: {figure(result['searchable_s'], UPLOAD_GOAL)}\n"
            f"  add by link:       {figure(result['added_s'], ADD_GOAL)}\n"
            f"  run (done, failed, status) before {result['run_before']}, "
            f"after {result['run_after']}; then {result['run_rate']:.2f} PDFs/s"
        )
        for value, goal in ((result["searchable_s"], UPLOAD_GOAL), (result["added_s"], ADD_GOAL)):
            failed |= value is None or value > goal
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
