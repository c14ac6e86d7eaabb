"""Print, as JSON, how many SQL queries each given path runs: `python -m bench.query_counts / ...`.

Runs in-process with Django's test client and CaptureQueriesContext against DATABASE_URL (the
benchmark harness sets the environment). A page that does not answer 200 gets null: a count
for an error page would say nothing about the real page.
"""

from __future__ import annotations

import json
import os
import sys


def main(paths: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    # Once-per-process lookups (content types, site settings) are not part of any page's cost.
    client.get("/")
    counts: dict[str, int | None] = {}
    for path in paths:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        counts[path] = len(captured.captured_queries) if response.status_code == 200 else None
        if response.status_code != 200:
            print(f"{path}: status {response.status_code}", file=sys.stderr)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
