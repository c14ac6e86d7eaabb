"""Issue 43, finding 9 (redirects): the client of the metadata services follows a redirect only
within the service's own origin, one hop at a time and each hop checked before it is asked
(papers.sources.redirects, which the PDF fetcher uses too). A redirect elsewhere, an internal
address included, is a FetchError "redirected off <service>" and nothing reaches it; a
redirect within the service is still followed. Replayed by respx: nothing reaches the network.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from bench.standins import v2_note
from papers.sources import crossref, openreview_api, single
from papers.sources.client import FetchClient, FetchError, Service
from tests.arxiv_feed import atom_entry, feed

CROSSREF = "https://crossref.test"
ARXIV = "https://arxiv.test/api/query"
OPENREVIEW = "https://openreview.test"
OPENREVIEW_V1 = "https://openreview-v1.test"
INTERNAL = "http://127.0.0.1:9/"
DOI = "10.1145/3292500.3330701"
ENCODED_DOI = "10.1145%2F3292500.3330701"


@pytest.fixture(autouse=True)
def outside_services(settings, monkeypatch):
    settings.ARXIV_API_URL = ARXIV
    settings.ARXIV_API_DELAY = 0
    settings.CROSSREF_API_URL = CROSSREF
    settings.OPENREVIEW_API_URL = OPENREVIEW
    settings.OPENREVIEW_API_V1_URL = OPENREVIEW_V1
    monkeypatch.setattr(single, "LOOKUP_BACKOFF", 0.0)


def moved(location: str, status: int = 302) -> httpx.Response:
    return httpx.Response(status, headers={"Location": location})


def crossref_work() -> dict:
    return {
        "status": "ok",
        "message-type": "work",
        "message": {"DOI": DOI, "title": ["Optuna"], "author": [{"given": "A", "family": "B"}]},
    }


def internal_address() -> respx.Route:
    """The address a redirect points at; a test asserts it was never asked."""
    return respx.route(host="127.0.0.1")


def client(base: str = CROSSREF, name: str = "Crossref") -> FetchClient:
    return FetchClient(Service(name, base), tries=1, sleep=lambda seconds: None)


# --- the client of every service ------------------------------------------------------------


@respx.mock
@pytest.mark.parametrize(
    "location",
    [
        INTERNAL,
        "http://169.254.169.254/latest/meta-data/",
        "https://elsewhere.test/works/x",
        "http://crossref.test/works/x",  # the same host, another scheme
        "https://crossref.test:8443/works/x",  # the same host, another port
        "https://user:secret@crossref.test/works/x",  # credentials
        "//127.0.0.1:9/",  # scheme-relative
    ],
)
def test_a_redirect_off_the_service_is_refused_and_never_asked(location):
    asked = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return moved(location)

    respx.route().mock(side_effect=answer)  # every request, wherever it goes

    with pytest.raises(FetchError) as refused, client() as http:
        crossref.fetch_work(DOI, http)

    assert "redirected off Crossref" in str(refused.value)
    assert refused.value.status is None  # not a 404: a lookup says the service failed
    assert asked == [f"{CROSSREF}/works/{ENCODED_DOI}"]


@respx.mock
def test_a_redirect_within_the_service_is_followed():
    respx.get(f"{CROSSREF}/works/{ENCODED_DOI}").mock(return_value=moved("/v2/works/moved"))
    moved_route = respx.get(f"{CROSSREF}/v2/works/moved").respond(200, json=crossref_work())

    with client() as http:
        record = crossref.fetch_work(DOI, http)

    assert record is not None and record.title == "Optuna"
    assert moved_route.call_count == 1


@respx.mock
def test_a_chain_through_a_redirecting_path_of_the_service_stops_where_it_leaves():
    """The probe's chain: a path of the service that redirects where it is told."""
    first = respx.get(f"{CROSSREF}/works/{ENCODED_DOI}").mock(
        return_value=moved(f"{CROSSREF}/redirect?to={INTERNAL}")
    )
    hop = respx.get(f"{CROSSREF}/redirect").mock(return_value=moved(INTERNAL, 307))
    internal = internal_address()

    with pytest.raises(FetchError, match=r"redirected off Crossref, to http://127\.0\.0\.1:9/"):
        with client() as http:
            crossref.fetch_work(DOI, http)

    assert (first.call_count, hop.call_count) == (1, 1)
    assert not internal.called


@respx.mock
def test_endless_redirects_within_the_service_are_refused():
    respx.get(f"{CROSSREF}/loop").mock(return_value=moved("/loop"))
    with pytest.raises(FetchError, match="Crossref: more than 5 redirects"), client() as http:
        http.get("/loop")


# --- each service's lookup, as a member's paste reaches it ----------------------------------


@pytest.mark.django_db
@respx.mock
def test_a_members_doi_lookup_redirected_to_an_internal_address_reaches_nothing(user):
    respx.get(f"{CROSSREF}/works/{ENCODED_DOI}").mock(return_value=moved(INTERNAL))
    internal = internal_address()

    with pytest.raises(single.ServiceUnavailable, match="Crossref did not answer"):
        single.paper_for_identifier(DOI, user=user)

    assert not internal.called


@pytest.mark.django_db
@respx.mock
def test_a_members_doi_lookup_redirected_within_crossref_adds_the_paper(user):
    respx.get(f"{CROSSREF}/works/{ENCODED_DOI}").mock(return_value=moved("/works/canonical"))
    respx.get(f"{CROSSREF}/works/canonical").respond(200, json=crossref_work())

    paper = single.paper_for_identifier(DOI, user=user)

    assert paper is not None and paper.doi == DOI


def arxiv_answer() -> httpx.Response:
    return httpx.Response(200, text=feed([atom_entry("2402.01234")], total=1))


@pytest.mark.django_db
@respx.mock
def test_an_arxiv_lookup_redirected_off_arxiv_reaches_nothing(user):
    respx.get(ARXIV).mock(return_value=moved(INTERNAL))
    internal = internal_address()

    with pytest.raises(single.ServiceUnavailable, match="arXiv did not answer"):
        single.paper_for_identifier("2402.01234", user=user)

    assert not internal.called


@pytest.mark.django_db
@respx.mock
def test_an_arxiv_lookup_redirected_within_arxiv_adds_the_paper(user):
    respx.get(ARXIV).mock(return_value=moved("https://arxiv.test/api/query2?id_list=2402.01234"))
    respx.get("https://arxiv.test/api/query2").mock(return_value=arxiv_answer())

    paper = single.paper_for_identifier("2402.01234", user=user)

    assert paper is not None and paper.arxiv_id == "2402.01234"


def openreview_notes() -> dict:
    return {"notes": [v2_note("Zg8ygQlHhl", "Forum Paper")], "count": 1}


@respx.mock
def test_an_openreview_fetch_redirected_off_openreview_reaches_nothing():
    respx.get(f"{OPENREVIEW}/notes").mock(return_value=moved(INTERNAL))
    internal = internal_address()

    with pytest.raises(FetchError, match="redirected off OpenReview"):
        openreview_api.fetch_forum("Zg8ygQlHhl", client=single.lookup_client)

    assert not internal.called


@respx.mock
def test_an_openreview_fetch_redirected_within_openreview_is_followed():
    respx.get(f"{OPENREVIEW}/notes").mock(return_value=moved("/v2/notes?id=Zg8ygQlHhl"))
    respx.get(f"{OPENREVIEW}/v2/notes").respond(200, json=openreview_notes())

    fetched = openreview_api.fetch_forum("Zg8ygQlHhl", client=single.lookup_client)

    assert fetched is not None
    assert [record.title for record in fetched.records] == ["Forum Paper"]
