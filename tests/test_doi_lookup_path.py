"""Issue 43, finding 9 (paths): a DOI is sent to Crossref as one encoded path segment, so it can
name no other path than its own under /works/, and the identifier parser refuses a DOI that
could (dot segments, encoded dots, control characters, spaces) with a message for the member.
Replayed by respx: nothing reaches the network."""

from __future__ import annotations

import httpx
import pytest
import respx

from papers.sources import crossref, single
from papers.sources.client import FetchClient, Service
from papers.sources.identifiers import Identifier, Kind, RefusedIdentifier, parse_identifier

CROSSREF = "https://crossref.test"


@pytest.fixture(autouse=True)
def crossref_settings(settings):
    settings.CROSSREF_API_URL = CROSSREF


def recorded() -> list[bytes]:
    """The raw path of every request, wherever it goes; each answered 404."""
    paths: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.raw_path)
        return httpx.Response(404)

    respx.route().mock(side_effect=answer)
    return paths


@respx.mock
@pytest.mark.parametrize(
    ("doi", "path"),
    [
        ("10.5555/../../x", b"/works/10.5555%2F..%2F..%2Fx"),
        ("10.5555/./x", b"/works/10.5555%2F.%2Fx"),
        ("10.5555/a?b#c", b"/works/10.5555%2Fa%3Fb%23c"),
        ("10.5555/%2e%2e/x", b"/works/10.5555%2F%252e%252e%2Fx"),
        # Positive control: a DOI with parentheses and a colon, as Wiley's are.
        ("10.1002/(sici)1097-4636:4", b"/works/10.1002%2F%28sici%291097-4636%3A4"),
    ],
)
def test_a_doi_is_one_path_segment_under_works(doi, path):
    """Whatever a DOI holds (a stored one is not parsed again), it stays under /works/."""
    paths = recorded()
    with FetchClient(Service("Crossref", CROSSREF), tries=1) as http:
        assert crossref.fetch_work(doi, http) is None  # 404: Crossref has no such work
    assert paths == [path]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("10.5555/../../x", 'it holds a "." or ".." path segment'),
        ("doi:10.5555/../../works", 'it holds a "." or ".." path segment'),
        ("https://doi.org/10.5555/x/..", 'it holds a "." or ".." path segment'),
        ("10.5555/.", 'it holds a "." or ".." path segment'),
        ("10.5555/x\\..\\y", 'it holds a "." or ".." path segment'),
        ("10.5555/x%2f..%2fy", 'it holds a "." or ".." path segment'),
        ("10.5555/x%252f..%252fy", 'it holds a "." or ".." path segment'),
        ("10.5555/%2e%2e/x", "it holds an encoded dot (%2e)"),
        ("10.5555/%2E%2E%2Fx", "it holds an encoded dot (%2e)"),
        ("10.5555/%252e%252e/x", "it holds an encoded dot (%2e)"),
        ("10.5555/a\x00b", "it holds a control or invisible character"),
        ("10.5555/a\x1fb", "it holds a control or invisible character"),
        ("10.5555/a\u200bb", "it holds a control or invisible character"),
        ("10.5555/a b", "it holds a space"),
        ("10.5555/a\tb", "it holds a control or invisible character"),
        ("10.5555/a\u3000b", "it holds a space"),
    ],
)
def test_the_parser_refuses_a_doi_that_could_name_another_path(text, problem):
    with pytest.raises(RefusedIdentifier) as refused:
        parse_identifier(text)
    assert refused.value.message == f"That DOI cannot be looked up: {problem}."


@pytest.mark.parametrize(
    ("text", "doi"),
    [
        ("10.1145/3292500.3330701", "10.1145/3292500.3330701"),
        ("https://doi.org/10.1145/3292500.3330701", "10.1145/3292500.3330701"),
        ("10.5555/a..b", "10.5555/a..b"),  # dots inside a segment name no other path
        ("10.1002/(SICI)1097-4636:4<>3.0.CO;2-J", "10.1002/(sici)1097-4636:4<>3.0.co;2-j"),
        ("10.5555/50%25-off", "10.5555/50%25-off"),
    ],
)  # fmt: skip
def test_the_parser_keeps_real_dois(text, doi):
    assert parse_identifier(text) == Identifier(Kind.DOI, doi)


@pytest.mark.django_db
@respx.mock
def test_a_members_lookup_of_such_a_doi_says_why_and_asks_nothing(user):
    paths = recorded()
    with pytest.raises(single.LookupFailed) as failed:
        single.paper_for_identifier("10.5555/../../x", user=user)
    assert failed.value.message == (
        'That DOI cannot be looked up: it holds a "." or ".." path segment.'
    )
    assert paths == []
