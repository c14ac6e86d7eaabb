"""The outside services an add by link asks, as respx replays them (arXiv's Atom feed), the
task worker that fetches the paper, and a count of every table's rows: what the tests of adding
by link and of the reader compare."""

from __future__ import annotations

from unittest import mock

import httpx
from django.db import connection
from django_tasks_db.management.commands import db_worker

from operations.queues import DEFAULT_QUEUE
from tests.arxiv_feed import atom_entry, feed

ARXIV = "https://arxiv.test/api/query"
CROSSREF = "https://crossref.test"
OPENREVIEW = "https://openreview.test"
OPENREVIEW_V1 = "https://openreview-v1.test"
DOI = "10.1145/3292500.3330701"

SCHRODINGER = atom_entry(
    "2402.01234",
    version=2,
    title='Schr\\"odinger bridges for\n      Lévy processes',
    summary="We bridge $\\alpha$-stable noise; Erd\\H{o}s would approve.",
    authors=("Zoë Müller", "Jürgen Schmidhuber"),
)


def use_test_services(settings) -> None:
    """Every service at a test address respx answers, and arXiv without its delay."""
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    settings.CROSSREF_API_URL = CROSSREF
    settings.OPENREVIEW_API_URL = OPENREVIEW
    settings.OPENREVIEW_API_V1_URL = OPENREVIEW_V1


def run_worker() -> None:
    """The task worker of the default queue, until it is empty (`task_worker --batch`): what
    fetches a paper a member asked for by its link (papers.link_tasks). Without its closing of
    old connections, which would end the test's own transaction on PostgreSQL (as the test
    client keeps a request from closing it)."""
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        _worker().run()


def _worker() -> db_worker.Worker:
    return db_worker.Worker(
        queue_names=[DEFAULT_QUEUE],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )


def arxiv_answer(*entries: str) -> httpx.Response:
    text = feed(list(entries), total=len(entries))
    return httpx.Response(200, text=text, headers={"Content-Type": "application/atom+xml"})


def crossref_work(doi: str = DOI) -> dict:
    """A work as Crossref's REST API answers /works/{doi} (api_format.md)."""
    return {
        "status": "ok",
        "message-type": "work",
        "message-version": "1.0.0",
        "message": {
            "DOI": doi.upper(),
            "type": "proceedings-article",
            "title": ["Optuna: A Next-generation Hyperparameter Optimization Framework"],
            "author": [
                {
                    "given": "Takuya",
                    "family": "Akiba",
                    "sequence": "first",
                    "ORCID": "http://orcid.org/0000-0002-1825-0097",
                    "authenticated-orcid": False,
                    "affiliation": [{"name": "Preferred Networks"}],
                },
                {"given": "Shotaro", "family": "Sano", "sequence": "additional"},
                {"name": "The Optuna Consortium", "sequence": "additional"},
            ],
            "container-title": [
                "Proceedings of the 25th ACM SIGKDD International Conference on Knowledge "
                "Discovery &amp; Data Mining"
            ],
            "issued": {"date-parts": [[2019, 7, 25]]},
            "abstract": (
                "<jats:title>Abstract</jats:title><jats:p>The purpose of this study is to "
                "introduce new design-criteria for <jats:italic>next-generation</jats:italic> "
                "hyperparameter optimization software.</jats:p><jats:p>Second &amp; last.</jats:p>"
            ),
            "URL": f"https://doi.org/{doi}",
            "link": [
                {
                    "URL": "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701",
                    "content-type": "application/pdf",
                    "content-version": "vor",
                    "intended-application": "similarity-checking",
                }
            ],
            "subject": ["Software"],
        },
    }


def row_counts() -> dict[str, int]:
    """Every table's row count (the cache's and the task queue's included)."""
    with connection.cursor() as cursor:
        counts = {}
        for table in connection.introspection.table_names(cursor):
            # A table name the database itself listed, quoted.
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
            counts[table] = cursor.fetchone()[0]
    return counts
