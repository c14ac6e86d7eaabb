"""Every facet of papers.facet_registry, walked one by one (issue 29): parsed from the list
page's URL, filtering and counted by the search index, shown as a chip, and honoured by a saved
search. A facet added to the registry fails here until it has an example below."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from alerts.models import SavedSearch
from alerts.queries import new_counts, normalise_query
from papers.facet_registry import FACETS, INDEXED_FACETS, FacetSpec, facet_of_kind
from papers.filters import PaperFilter
from papers.models import Author, Paper, PaperTag, SearchChange, TagKind
from papers.search import schema
from papers.search.values import BrowseQuery, Facets
from tests.factories import make_paper, make_reading_list, make_user
from tests.highlight_helpers import store_pdf_row


def _tagged(kind: str, name: str) -> Callable[[object], tuple[str, Paper]]:
    def example(member) -> tuple[str, Paper]:
        paper = make_paper("The paper with it", tags=[(name, kind)])
        return PaperTag.objects.get(paper=paper).tag.slug, paper

    return example


def _authored(member) -> tuple[str, Paper]:
    paper = make_paper("The paper with it", authors=["Ada Example"])
    return str(Author.objects.get(name="Ada Example").pk), paper


def _with_pdf(member) -> tuple[str, Paper]:
    paper = make_paper("The paper with it")
    store_pdf_row(paper)
    SearchChange.objects.record([paper.pk])  # as pdfs.storing records a stored file
    return "yes", paper


def _in_my_list(member) -> tuple[str, Paper]:
    paper = make_paper("The paper with it")
    make_reading_list(member, papers=[paper])
    return "lists", paper


# URL parameter -> a paper having a value of that facet, made for `member`, and that value.
EXAMPLES: dict[str, Callable[[object], tuple[str, Paper]]] = {
    "venue": _tagged(TagKind.VENUE, "ICLR 2024"),
    "track": _tagged(TagKind.TRACK, "Poster"),
    "decision": _tagged(TagKind.DECISION, "Accept (poster)"),
    "area": _tagged(TagKind.AREA, "Optimization"),
    "author": _authored,
    "keyword": _tagged(TagKind.KEYWORD, "diffusion models"),
    "tag": _tagged(TagKind.LAB, "robotics"),
    "pdf": _with_pdf,
    "mine": _in_my_list,
}


def test_every_facet_has_an_example_here():
    assert list(EXAMPLES) == [spec.param for spec in FACETS]


@pytest.mark.django_db
@pytest.mark.parametrize("spec", FACETS, ids=lambda spec: spec.param)
def test_a_facet_filters_counts_chips_and_is_kept_by_a_saved_search(client, spec: FacetSpec):
    member = make_user("ana")
    client.force_login(member)
    make_paper("A paper without it")
    value, paper = EXAMPLES[spec.param](member)
    query = urlencode({spec.param: value})

    state = PaperFilter(QueryDict(query), request=SimpleNamespace(user=member)).state
    assert [str(v) for v in state.selection.values(spec)] == [value]
    assert state.selection.ignored == []

    response = client.get(reverse("papers:list") + "?" + query)
    assert [p.title for p in response.context["papers"]] == [paper.title]
    (facet,) = [facet for facet in response.context["facets"] if facet.param == spec.param]
    assert facet.title == spec.title
    (chosen,) = [v for v in facet.values if v.selected]
    assert (chosen.value, chosen.count) == (value, 1)
    (chip,) = response.context["chips"]
    assert (chip["facet"], chip["label"]) == (spec.title, chosen.label)
    assert spec.param not in chip["query"]  # the chip removes the selection

    assert normalise_query(query, member).query == query
    earlier = timezone.now() - timedelta(minutes=5)
    search = SavedSearch.objects.create(owner=member, name="It", query=query)
    SavedSearch.objects.filter(pk=search.pk).update(created_at=earlier, last_seen_at=earlier)
    search.refresh_from_db()
    assert new_counts(member, [search]) == {search.pk: 1}  # the paper with it, not the other


@pytest.mark.parametrize("spec", INDEXED_FACETS, ids=lambda spec: spec.param)
def test_an_indexed_facet_names_an_index_field_a_query_and_a_count(spec: FacetSpec):
    assert spec.index_field in schema.FACET_FIELDS
    assert spec.query_attribute in {f.name for f in dataclasses.fields(BrowseQuery)}
    assert spec.engine_name in {f.name for f in dataclasses.fields(Facets)}


def test_each_tag_kind_has_one_facet_which_its_tag_page_links_to():
    for kind in TagKind.values:
        facets = [spec for spec in FACETS if spec.tag_kind == kind]
        assert len(facets) == 1
        assert facet_of_kind(kind) is facets[0]
