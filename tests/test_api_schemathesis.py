"""The JSON API against its own OpenAPI document (docs/api.md), property-based: schemathesis
generates requests for every operation from the document (valid ones, and ones the document
rules out), sends them to the site in this process, and checks each answer: never a server
error, a status code the operation declares, the declared content type, a body of the
declared schema, and a request the document rules out refused (4xx).

Each operation runs twice: as a visitor, and as a member with a read-write token, over a small
catalogue made for the test (papers, an author, lists, a note, a highlight on a stored PDF's
text, a fetch); half the time an id the request names is one of these, so the answers are not
all 404s. Requests go through Django's WSGI handler, as gunicorn's do (config/wsgi.py), inside
the test's database transaction (SQLite and PostgreSQL alike); the run is derandomized (a fixed
seed) and bounded (MAX_EXAMPLES). Alone: `.venv/bin/pytest tests/test_api_schemathesis.py`."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from ninja.errors import HttpError
from schemathesis.errors import FailureGroup

from api import catalogue as catalogue_routes
from api.models import TokenScope
from api.tokens import create_token
from papers.models import LinkFetch
from tests.factories import make_note, make_paper, make_reading_list, make_user
from tests.highlight_helpers import make_highlight, store_pdf_row, store_pdf_text

pytestmark = pytest.mark.django_db

# Generated requests per operation and caller in the fuzzing phase (the coverage phase adds
# its own: each type's edges, each required field left out, ...). About 20 requests a test.
MAX_EXAMPLES = 15


# config.wsgi's application, without that module's setting of the environment for the process.
application = WSGIHandler()


def _in_the_tests_transaction(environ, start_response) -> Iterable[bytes]:
    """The site's WSGI application as Django's test client calls it: the request's start and
    end do not close the database connection, which holds the test's transaction (a server's
    worker closes it between requests; here it is the test's)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = application(environ, start_response)
        body = b"".join(response)
        response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return [body]


CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 42,
        "generation": {
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            # No example database written to .hypothesis/: every run the same.
            "database": "none",
            "mode": "all",  # valid requests and ones the document rules out
        },
        "phases": {
            "examples": {"enabled": False},  # the document has none
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
        "checks": {
            "enabled": False,
            "not_a_server_error": {"enabled": True},
            "status_code_conformance": {"enabled": True},
            "content_type_conformance": {"enabled": True},
            "response_schema_conformance": {"enabled": True},
            "negative_data_rejection": {"enabled": True},
        },
    }
)
# The document as the site serves it (tests/test_api_reads.py validates it).
schema = schemathesis.openapi.from_wsgi(
    "/api/v1/openapi.json", _in_the_tests_transaction, config=CONFIG
)

# The catalogue is made once per operation and caller: the generated writes pile up in it, as a
# client's would, and are rolled back with the test.
ONE_CATALOGUE_PER_OPERATION = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def catalogue(settings):
    """What the generated ids may name: {path parameter or body field: ids}, and the member's
    read-write token. The token's rate limit is raised out of the way (each of its slots is a
    cache key read on every request, so not without bound)."""
    settings.API_TOKEN_RATE_LIMIT = 1_000
    member = make_user("member")
    other = make_user("other")
    papers = [
        make_paper(f"Paper {n}", authors=["Ada Lovelace"], tags=[("ICLR 2024", "venue")])
        for n in range(3)
    ]
    store_pdf_text(store_pdf_row(papers[0]), ["We propose a simple method.", "It works."])
    mine = make_reading_list(member, "Mine", papers=papers[:2])
    shared = make_reading_list(other, "Shared", papers=papers[1:], visibility="shared")
    make_note(member, papers[0])
    make_highlight(member, papers[0], visibility="lab")
    fetch = LinkFetch.objects.create(
        requested_by=member, kind="doi", value="10.1145/1", link="10.1145/1", status="failed"
    )
    _token, raw = create_token(user=member, name="schemathesis", scope=TokenScope.WRITE)
    paper_ids = [paper.pk for paper in papers]
    return {
        "token": raw,
        "paper_id": paper_ids,
        "paper": paper_ids,
        "author_id": list(papers[0].authors.values_list("pk", flat=True)),
        "list_id": [mine.pk, shared.pk],
        "item_id": [*mine.items.values_list("pk", flat=True)]
        + [*shared.items.values_list("pk", flat=True)],
        "fetch_id": [fetch.pk],
    }


def _seeded(case, catalogue: dict, data) -> None:
    """Half the time, each id in the path, the query or a JSON body names a row of the
    catalogue instead of the drawn number."""
    for values in (case.path_parameters, case.query, case.body):
        if not isinstance(values, dict):
            continue
        for name in list(values):
            known = catalogue.get(name)
            if known and data.draw(st.booleans(), label=f"seed {name}"):
                values[name] = data.draw(st.sampled_from(known), label=name)


@schema.given(data=st.data())
@schema.parametrize()
@ONE_CATALOGUE_PER_OPERATION
def test_a_visitor(case, data, catalogue):
    _seeded(case, catalogue, data)
    case.call_and_validate()


@schema.given(data=st.data())
@schema.parametrize()
@ONE_CATALOGUE_PER_OPERATION
def test_a_member_with_a_read_write_token(case, data, catalogue):
    _seeded(case, catalogue, data)
    case.call_and_validate(headers={"Authorization": f"Bearer {catalogue['token']}"})


def test_the_checks_catch_a_server_error_and_an_undeclared_status(catalogue, monkeypatch):
    """The runs above can fail: the same checks on one request, answered as declared (the
    positive control), then after a fault (500) and with a status the operation does not
    declare (418)."""
    paper_id = catalogue["paper_id"][0]
    case = schema["/api/v1/papers/{paper_id}"]["GET"].Case(path_parameters={"paper_id": paper_id})
    assert case.call_and_validate().status_code == 200

    def fault(*args, **kwargs):
        raise RuntimeError("a fault in the view")

    monkeypatch.setattr(catalogue_routes, "reviews_shown", fault)
    with pytest.raises(FailureGroup, match="Server error"):
        case.call_and_validate()

    def teapot(*args, **kwargs):
        raise HttpError(418, "Not declared.")

    monkeypatch.setattr(catalogue_routes, "reviews_shown", teapot)
    with pytest.raises(FailureGroup, match="Undocumented status code"):
        case.call_and_validate()
