"""Print, as JSON, the SQL queries and time of each path: `python -m bench.query_counts / ...`.

Runs in-process with Django's test client and CaptureQueriesContext against DATABASE_URL (the
benchmark harness sets the environment). Output: {path: [queries, milliseconds]}. The process
is fresh, so the time is a cold one: no in-process cache (such as facet counts) holds anything
for the path yet. A page that does not answer 200 gets null queries: a count for an error page
would say nothing about the real page.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(paths: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    # Once-per-process work (URLconf, templates, first connection) is not part of any page's
    # cost; the login page does it without touching the catalogue's caches.
    client.get("/accounts/login/")
    counts: dict[str, list] = {}
    for path in paths:
        started = time.perf_counter()
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        ms = (time.perf_counter() - started) * 1000
        queries = len(captured.captured_queries) if response.status_code == 200 else None
        counts[path] = [queries, round(ms, 1)]
        if response.status_code != 200:
            print(f"{path}: status {response.status_code}", file=sys.stderr)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
