"""The JSON API's reads (api/, docs/api.md): the list page's search with its counts, facets and
paging; what a member or visitor may read, each refusal beside its positive control; the
OpenAPI 3.1 document."""

from __future__ import annotations

import copy
import re

import jsonschema_rs
import pytest
from django.urls import reverse

from api.models import TokenScope
from highlights.models import HighlightVisibility
from tests.api_helpers import token_client, validate_openapi
from tests.factories import make_note, make_paper, make_reading_list
from tests.highlight_helpers import make_highlight

pytestmark = pytest.mark.django_db

QUERIES = [
    "q=diffusion",
    "q=diffusion&venue=iclr-2024",
    "venue=iclr-2024&sort=title&per_page=10&page=2",
    'q="score matching" OR transformer',
    "q=diffusion -transformer&mine=lists",
    "q=nothing-like-this",
]


@pytest.fixture
def catalogue(user):
    papers = []
    for n in range(14):
        words = "diffusion score matching" if n % 2 else "transformer attention"
        venue = "ICLR 2024" if n % 3 else "NeurIPS 2023"
        papers.append(
            make_paper(
                f"Paper {n} on {words}",
                abstract=f"We study {words}.",
                authors=[f"Author {n % 4}"],
                tags=[(venue, "venue")],
            )
        )
    make_reading_list(user, "Mine", papers=papers[:5])
    return papers


def _page(client, query: str):
    response = client.get(f"{reverse('papers:list')}?{query}")
    assert response.status_code == 200
    context = response.context
    facets = {
        facet.param: {value.value: value.count for value in facet.values}
        for facet in context["facets"]
    }
    return context["total"], [paper.pk for paper in context["papers"]], facets


@pytest.mark.parametrize("query", QUERIES)
def test_search_answers_what_the_list_page_shows(client, user, catalogue, query):
    client.force_login(user)
    total, ids, facets = _page(client, query)
    answer = token_client(user, TokenScope.READ).get(f"/api/v1/papers?{query}")
    assert answer.status_code == 200
    found = answer.json()
    assert found["total"] == total
    assert [paper["id"] for paper in found["papers"]] == ids
    assert {
        facet["param"]: {value["value"]: value["count"] for value in facet["values"]}
        for facet in found["facets"]
    } == facets


def test_a_visitor_searches_as_a_visitor(client, catalogue):
    total, ids, facets = _page(client, "q=diffusion")
    found = client.get("/api/v1/papers?q=diffusion&mine=lists").json()
    # The "mine" facet is a member's: ignored for a visitor, as on the page.
    assert found["total"] == total and [p["id"] for p in found["papers"]] == ids
    assert "mine" not in {facet["param"] for facet in found["facets"]}


def test_a_paper_with_its_authors_tags_and_venue(client, catalogue):
    paper = catalogue[1]
    found = client.get(f"/api/v1/papers/{paper.pk}").json()
    assert found["title"] == paper.title
    assert [author["name"] for author in found["authors"]] == ["Author 1"]
    assert found["venue"] == "ICLR 2024"
    assert client.get("/api/v1/papers/999999").status_code == 404


def test_another_members_private_list_note_and_highlight_are_not_reachable(user, other_user):
    paper = make_paper("A paper")
    private = make_reading_list(other_user, "Bob's private list", papers=[paper])
    shared = make_reading_list(other_user, "Bob's shared list", visibility="shared")
    make_note(other_user, paper, "Bob's private note")
    make_note(user, paper, "Alice's own note")
    make_highlight(other_user, paper, exact="Bob's private quote")
    make_highlight(other_user, paper, exact="Bob's lab quote", visibility=HighlightVisibility.LAB)
    alice = token_client(user, TokenScope.READ)

    assert alice.get(f"/api/v1/lists/{private.pk}").status_code == 404
    assert alice.get(f"/api/v1/lists/{shared.pk}").status_code == 200  # the positive control
    names = {each["name"] for each in alice.get("/api/v1/lists").json()}
    assert names == {"Bob's shared list"}
    notes = [note["body"] for note in alice.get("/api/v1/notes").json()]
    assert notes == ["Alice's own note"]
    quotes = [
        selector["refinedBy"][0]["exact"]
        for selector in (h["target"]["selector"] for h in alice.get("/api/v1/highlights").json())
    ]
    assert quotes == ["Bob's lab quote"]
    # Bob reads his own.
    bob = token_client(other_user, TokenScope.READ)
    assert bob.get(f"/api/v1/lists/{private.pk}").status_code == 200
    assert "Bob's private note" in bob.get("/api/v1/notes").content.decode()


def test_a_visitor_gets_the_public_catalogue_only(client, user):
    paper = make_paper("A public paper")
    shared = make_reading_list(user, "A shared list", papers=[paper], visibility="shared")
    make_note(user, paper, "A note")
    make_highlight(user, paper, exact="A lab quote", visibility=HighlightVisibility.LAB)
    assert client.get(f"/api/v1/papers/{paper.pk}").status_code == 200
    assert client.get("/api/v1/papers").json()["total"] == 1
    assert client.get("/api/v1/lists").json() == []
    assert client.get(f"/api/v1/lists/{shared.pk}").status_code == 404
    assert client.get("/api/v1/notes").json() == []
    assert client.get("/api/v1/highlights").json() == []
    assert client.get("/api/v1/notifications").json() == []
    # A member sees the lab's (the positive control).
    member = token_client(user, TokenScope.READ)
    assert len(member.get("/api/v1/highlights").json()) == 1


def test_the_openapi_document_is_served_and_valid(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    assert "/api/v1/papers" in document["paths"]
    assert "/api/v1/lists/{list_id}/items" in document["paths"]
    assert "TokenAuth" in document["components"]["securitySchemes"]
    validate_openapi(document)
    _check_document(document)


def test_the_validation_refuses_a_broken_document(client):
    """validate_openapi's negative: one response without its description, one parameter in
    no place OpenAPI has, one schema of a type JSON Schema has not; the document above passes."""
    document = client.get("/api/v1/openapi.json").json()
    validate_openapi(copy.deepcopy(document))
    tags = ["paths", "/api/v1/tags", "get"]
    breakages = [
        (tags + ["responses", "200"], {"content": {}}),
        (tags + ["parameters", 0, "in"], "body"),
        (tags + ["parameters", 0, "schema"], {"type": "text"}),
    ]
    for path, value in breakages:
        broken = copy.deepcopy(document)
        node = broken
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        with pytest.raises(jsonschema_rs.ValidationError):
            validate_openapi(broken)


def _check_document(document: dict) -> None:
    """What validate_openapi does not check and a client generator needs: every reference
    resolves, every operation has a unique id and answers, every path parameter is declared."""
    refs: list[str] = []

    def collect(node) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(document)
    schemas = document["components"]["schemas"]
    assert [ref for ref in refs if ref.removeprefix("#/components/schemas/") not in schemas] == []
    ids = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            ids.append(operation["operationId"])
            assert operation["responses"], (method, path)
            declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert declared == set(re.findall(r"{(\w+)}", path)), (method, path)
    assert len(ids) == len(set(ids))


def test_where_every_page_needs_login_a_token_reads_and_a_visitor_does_not(settings, user):
    settings.REQUIRE_LOGIN = True
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE,
        "django.contrib.auth.middleware.LoginRequiredMiddleware",
    ]
    paper = make_paper("A paper")
    from django.test import Client

    assert Client().get(f"/api/v1/papers/{paper.pk}").status_code == 401
    assert token_client(user, TokenScope.READ).get(f"/api/v1/papers/{paper.pk}").status_code == 200
    # The site's pages still send a visitor to log in.
    assert Client().get(reverse("papers:list")).status_code == 302
