"""How long `manage.py sync_zotero` takes to pull a lab's group library of N items, first whole
and then with nothing changed, against the tests' stand-in of Zotero's Web API v3
(tests/zotero_server.group_library: journal articles, conference papers and preprints, 1-5
authors, tags, 20 collections, a note on every tenth item). docs/zotero.md keeps the figures.

    python -m bench.zotero_bench --db sqlite                    # a file under bench/out/
    python -m bench.zotero_bench --db postgres --url postgres://postgres@127.0.0.1:5432/NAME

On PostgreSQL give a database of your own: it is migrated and emptied (manage.py flush).
Wall time of the child process, Django's start-up included; the stand-in answers at once (no
Backoff, no 429).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness import OUT, log, manage, manage_measured, reset_database, server_env
from tests import zotero_server

CONNECT = """
from django.contrib.auth import get_user_model
from zotero.models import Library
member = get_user_model().objects.create_user("zotero-sync", "zotero-sync@example.org")
Library.objects.create(group_id=4711, member=member)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default="", help="the PostgreSQL database to use (emptied)")
    parser.add_argument("--items", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.db == "postgres":
        if not args.url.startswith("postgres"):
            parser.error("--db postgres needs --url of a database of your own")
        url = args.url
    else:
        url = f"sqlite:///{OUT / 'zotero.sqlite3'}"
        reset_database(url)
    env = server_env(url)
    log(f"migrating {args.db}")
    manage(env, "migrate", "--noinput")
    if args.db == "postgres":
        manage(env, "flush", "--noinput")
    manage(env, "shell", "-c", CONNECT)
    server = zotero_server.start()
    try:
        zotero_server.group_library(server, args.items)
        env |= {"ZOTERO_API_URL": server.url, "ZOTERO_API_KEY": zotero_server.API_KEY}
        for run in ("first", "second"):
            server.requests.clear()
            measured = manage_measured(env, "sync_zotero")
            print(
                f"{args.db} {run} pull of {args.items} paper items "
                f"({len(server.items)} objects): {measured.seconds:.1f} s, "
                f"{len(server.requests)} requests, peak {measured.peak_rss_mb:.0f} MB; "
                f"{measured.stdout.strip()}"
            )
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
