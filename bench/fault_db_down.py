"""Fault run: stop PostgreSQL under a running gunicorn; pages answer 503/500 from our templates,
/healthz 503, and the same gunicorn recovers when PostgreSQL is back.

1. a database `bench` holding papers (the benchmark's, else a fresh small one), gunicorn on it;
2. with PostgreSQL up: list, paper and author pages 200, /healthz 200;
3. `pg_ctlcluster --skip-systemctl-redirect <version> main stop`; the same pages answer 500 or
   503 with our error template's heading (templates/503.html or 500.html) and no traceback;
   /healthz answers 503;
4. `... main start` (always, in a `finally`); pages and /healthz answer 200 again within
   --recover-timeout seconds from the same gunicorn master, which is never restarted.

Stopping PostgreSQL breaks anything else using the server at that moment (test runs too).
--dry-run does steps 1-2 and the template checks, and only prints the stop/start commands.

    python -m bench.fault_db_down --dry-run
    python -m bench.fault_db_down            # stops the shared PostgreSQL server for a few seconds
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from pathlib import Path

from bench.harness import (
    ROOT,
    Gunicorn,
    Response,
    database_url,
    free_port,
    get,
    log,
    manage,
    paper_count,
    prepare_database,
    query,
    server_env,
    stop_on_sigterm,
)

_HEADING = re.compile(r"{%\s*block heading\s*%}(.*?){%\s*endblock", re.DOTALL)


def error_markers() -> dict[int, str]:
    """Status -> heading text our error templates show, read from the templates themselves."""
    markers = {}
    for status in (500, 503):
        template = ROOT / "templates" / f"{status}.html"
        found = _HEADING.search(template.read_text()) if template.exists() else None
        if not found:
            raise SystemExit(f"{template} has no {{% block heading %}}: cannot recognise the page")
        markers[status] = found.group(1).strip()
    return markers


def pg_cluster() -> tuple[str, str]:
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir() if p.is_dir())
    if len(versions) != 1:
        raise SystemExit(f"expected one PostgreSQL version under /etc/postgresql, found {versions}")
    return versions[0], "main"


def pg_ctl(action: str) -> list[str]:
    version, cluster = pg_cluster()
    return ["pg_ctlcluster", "--skip-systemctl-redirect", version, cluster, action]


class Checks:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failed = 0

    def check(self, ok: bool, what: str) -> bool:
        self.lines.append(f"- [{'ok' if ok else 'FAIL'}] {what}")
        log(self.lines[-1])
        self.failed += not ok
        return ok


def fetch(port: int, path: str) -> Response | None:
    try:
        return get(port, path, timeout=15)
    except OSError:
        return None


def describe(response: Response | None) -> str:
    return (
        "no answer"
        if response is None
        else f"{response.status} in {response.seconds * 1000:.0f} ms"
    )


def check_error_page(checks: Checks, port: int, path: str, markers: dict[int, str]) -> None:
    response = fetch(port, path)
    if response is None:
        checks.check(False, f"{path} while down: no answer")
        return
    body = response.body.decode(errors="replace")
    # The README promises 503 from our template while the database is down: nothing else.
    marker = markers.get(503) if response.status == 503 else None
    ok = marker is not None and marker in body and "Traceback" not in body
    checks.check(
        ok,
        f"{path} while down: {describe(response)}, "
        + (f"our page ('{marker}')" if ok else f"unexpected body {body[:200]!r}"),
    )


def rehearse_outage(checks: Checks, pages: list[str], markers: dict[int, str]) -> None:
    """The down-state checks against a second gunicorn whose database port has no server.

    Connection refused is what the app sees while PostgreSQL is stopped, so this checks the
    error pages and /healthz without stopping the server other people are using.
    """
    nowhere = f"postgres://postgres@127.0.0.1:{free_port()}/bench"
    env = server_env(nowhere)
    with Gunicorn(env, workers=1, log_name="gunicorn-db-nowhere", ready_when_any_answer=True) as s:
        for path in pages:
            check_error_page(checks, s.port, path, markers)
        health = fetch(s.port, "/healthz")
        ok = health is not None and health.status == 503
        checks.check(ok, f"/healthz with no database server: {describe(health)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="never stop PostgreSQL")
    parser.add_argument("--papers", type=int, default=2000, help="size of a fresh database")
    parser.add_argument("--recover-timeout", type=float, default=60, help="seconds")
    args = parser.parse_args(argv)
    stop_on_sigterm()
    markers = error_markers()
    log(f"error page markers: {markers}")
    stop, start = pg_ctl("stop"), pg_ctl("start")

    url = database_url("postgres", "")
    papers = paper_count(url)
    if not papers:
        papers = prepare_database("postgres", args.papers).papers
    manage(server_env(url), "collectstatic", "--noinput")
    paper_id = query(url, "SELECT MIN(id) FROM papers_paper")[0][0]
    author_id = query(url, "SELECT MIN(author_id) FROM papers_authorship")[0][0]
    pages = ["/", "/?q=learning", f"/papers/{paper_id}/", f"/authors/{author_id}/"]
    checks = Checks()
    stopped = False
    with Gunicorn(server_env(url), workers=2, log_name="gunicorn-db-down") as server:
        master, workers_before = server.pid, server.worker_pids()
        log(f"gunicorn master {master}, workers {workers_before}, {papers:,} papers")
        for path in pages:
            response = fetch(server.port, path)
            checks.check(
                response is not None and response.status == 200, f"{path} up: {describe(response)}"
            )
        health = fetch(server.port, "/healthz")
        checks.check(
            health is not None and health.status == 200, f"/healthz up: {describe(health)}"
        )
        if args.dry_run:
            rehearse_outage(checks, pages, markers)
            print(
                "\nDry run: PostgreSQL left running. The real run would now execute\n  "
                + " ".join(stop)
                + "\nthen check these pages for 503 with "
                + f"{markers.get(503)!r} and /healthz for 503, then\n  "
                + " ".join(start)
                + f"\nand wait up to {args.recover_timeout:.0f} s for 200s from gunicorn {master}."
            )
            print(f"Dry run checks: {'PASS' if not checks.failed else 'FAIL'}")
            return 1 if checks.failed else 0
        try:
            log("stopping PostgreSQL: " + " ".join(stop))
            stopped = True
            subprocess.run(stop, check=True)
            for path in pages:
                check_error_page(checks, server.port, path, markers)
            health = fetch(server.port, "/healthz")
            checks.check(
                health is not None and health.status == 503,
                f"/healthz while down: {describe(health)}",
            )
        finally:
            if stopped:
                log("starting PostgreSQL: " + " ".join(start))
                subprocess.run(start, check=False)
        started = time.monotonic()
        recovered = False
        while time.monotonic() - started < args.recover_timeout:
            answers = [fetch(server.port, path) for path in [*pages, "/healthz"]]
            if all(a is not None and a.status == 200 for a in answers):
                recovered = True
                break
            time.sleep(0.5)
        checks.check(
            recovered,
            f"every page and /healthz 200 again {time.monotonic() - started:.1f} s after restart",
        )
        checks.check(
            server.running() and server.pid == master,
            f"same gunicorn master {master} throughout",
        )
        workers_after = server.worker_pids()
        checks.check(
            workers_after == workers_before,
            f"same gunicorn workers {workers_before} throughout (after: {workers_after})",
        )
    print("\n### Database down (PostgreSQL stopped under a running gunicorn)")
    print("\n".join(checks.lines))
    print(f"\nDatabase down: {'PASS' if not checks.failed else f'FAIL ({checks.failed} checks)'}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
