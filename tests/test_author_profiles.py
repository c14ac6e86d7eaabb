"""Authors keep their OpenReview profile ids (content.authorids): two people with one name and
different profile ids stay two authors, one person under two spellings with one profile id is
one author, and an author known by name until now takes the profile id an import gives. E-mail
addresses, which authorids also carry, are never kept."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from django.urls import reverse

from bench.standins import VENUE, page, v2_note
from papers import services
from papers.importing import openreview
from papers.importing.pipeline import import_records
from papers.importing.records import PaperRecord, validate_record
from papers.models import Author, Authorship, ImportConflict, Paper
from papers.sources.runs import fetch_venue_into_catalogue
from tests.factories import make_paper

SOURCE = "openreview:test"


def record(forum_id: str, authors: list[str], author_ids: list[str] = ()) -> PaperRecord:
    return PaperRecord(
        title=f"Paper {forum_id}",
        forum_id=forum_id,
        forum_url="",
        pdf_url="",
        authors=authors,
        tags=[],
        abstract=f"The abstract of {forum_id}.",
        source=SOURCE,
        line=1,
        author_ids=list(author_ids),
    )


def load(*records: PaperRecord, source: str = SOURCE):
    return import_records(list(records), source=source)


def authors_of(forum_id: str) -> list[tuple[str, str | None]]:
    rows = Authorship.objects.filter(paper__forum_id=forum_id).order_by("position")
    return list(rows.values_list("author__name", "author__openreview_id"))


# --- Reading: authorids beside the names -------------------------------------------------


def note_line(**content) -> str:
    values = {"title": "A Paper", "abstract": "An abstract.", **content}
    wrapped = {name: {"value": value} for name, value in values.items()}
    return json.dumps({"id": "Abc_123", "forum": "Abc_123", "content": wrapped})


def test_the_reader_pairs_profile_ids_with_names_and_never_keeps_an_email_address():
    text = note_line(
        authors=["Ann One", "Bo Two", "Cy Three"],
        authorids=["~Ann_One1", "bo@university.edu", "~Cy_Three2"],
    )
    (paper,) = openreview.read(text, "n.jsonl")
    validate_record(paper)
    assert paper.authors == ["Ann One", "Bo Two", "Cy Three"]
    assert paper.author_ids == ["~Ann_One1", "", "~Cy_Three2"]


def test_api_v1_authorids_and_placeholders_keep_their_places():
    v1 = {
        "id": "Old_1",
        "content": {
            "title": "Old",
            "abstract": "Old abstract.",
            "authors": ["Anonymous", "Ann One"],
            "authorids": ["ICLR.cc/2019/Conference/Paper1/Authors", "~Ann_One1"],
        },
    }
    (paper,) = openreview.read(json.dumps(v1), "n.jsonl")
    validate_record(paper)
    assert (paper.authors, paper.author_ids) == (["Ann One"], ["~Ann_One1"])


@pytest.mark.parametrize(
    "authorids",
    [
        ["~Ann_One1"],  # one id for two names: they do not pair
        "~Ann_One1",  # not a list
        None,
        ["bo@university.edu", "ann@university.edu"],  # no profile at all
    ],
)
def test_authorids_that_name_no_profile_beside_each_name_are_left_out(authorids):
    text = note_line(authors=["Ann One", "Bo Two"], authorids=authorids)
    (paper,) = openreview.read(text, "n.jsonl")
    validate_record(paper)
    assert (paper.authors, paper.author_ids) == (["Ann One", "Bo Two"], [])


# --- Loading: which author each name and profile id is -----------------------------------


@pytest.mark.django_db
def test_two_people_with_one_name_and_different_profiles_stay_two_authors():
    load(
        record("p1", ["Wei Zhang", "Ann One"], ["~Wei_Zhang1", "~Ann_One1"]),
        record("p2", ["Wei Zhang"], ["~Wei_Zhang2"]),
    )
    assert authors_of("p1") == [("Wei Zhang", "~Wei_Zhang1"), ("Ann One", "~Ann_One1")]
    assert authors_of("p2") == [("Wei Zhang", "~Wei_Zhang2")]
    assert Author.objects.filter(name="Wei Zhang").count() == 2


@pytest.mark.django_db
def test_two_authors_with_one_name_on_one_paper_are_two_authorships():
    load(record("p1", ["Wei Zhang", "Wei Zhang"], ["~Wei_Zhang1", "~Wei_Zhang2"]))
    assert authors_of("p1") == [("Wei Zhang", "~Wei_Zhang1"), ("Wei Zhang", "~Wei_Zhang2")]
    assert Paper.objects.get().author_names == "Wei Zhang, Wei Zhang"


@pytest.mark.django_db
def test_one_person_under_two_spellings_with_one_profile_is_one_author():
    load(record("p1", ["Jürgen Schmidhuber"], ["~Jurgen_Schmidhuber1"]))
    load(record("p2", ["J. Schmidhuber"], ["~Jurgen_Schmidhuber1"]))
    author = Author.objects.get()
    assert author.name == "Jürgen Schmidhuber"  # the name it was first stored under
    assert set(author.authorships.values_list("paper__forum_id", flat=True)) == {"p1", "p2"}


@pytest.mark.django_db
def test_an_author_known_by_name_takes_the_profile_id_and_is_not_duplicated():
    known = make_paper("From a file", authors=["Ann One"]).authorships.get().author
    load(record("p1", ["Ann One"], ["~Ann_One1"]))
    assert Author.objects.get() == known
    known.refresh_from_db()
    assert known.openreview_id == "~Ann_One1"
    # A second person of that name, with another profile, is another author.
    load(record("p2", ["Ann One"], ["~Ann_One2"]))
    assert Author.objects.filter(name="Ann One").count() == 2


@pytest.mark.django_db
def test_a_name_without_a_profile_id_finds_the_author_of_that_name():
    load(record("p1", ["Ann One"], ["~Ann_One1"]))
    load(record("p2", ["Ann One"]), source="ann.bib")
    assert authors_of("p2") == [("Ann One", "~Ann_One1")]
    assert Author.objects.count() == 1


@pytest.mark.django_db
def test_profile_ids_arriving_for_papers_imported_without_them_fill_in_their_authors():
    load(record("p1", ["Ann One", "Bo Two"]))
    before = list(Author.objects.order_by("pk").values_list("pk", flat=True))
    report = load(record("p1", ["Ann One", "Bo Two"], ["~Ann_One1", "bo@example.org"]))
    assert report.total.updated == 1
    assert authors_of("p1") == [("Ann One", "~Ann_One1"), ("Bo Two", None)]
    assert list(Author.objects.order_by("pk").values_list("pk", flat=True)) == before
    # Nothing new the next time.
    report = load(record("p1", ["Ann One", "Bo Two"], ["~Ann_One1", "bo@example.org"]))
    assert report.total.unchanged == 1


@pytest.mark.django_db
def test_profile_ids_for_the_names_another_source_gave_are_no_conflict():
    load(record("p1", ["Ann One", "Bo Two"]), source="refs.bib")
    report = load(record("p1", ["Ann One", "Bo Two"], ["~Ann_One1", "~Bo_Two1"]))
    assert (report.total.updated, report.total.conflicts) == (1, [])
    assert not ImportConflict.objects.exists()
    assert authors_of("p1") == [("Ann One", "~Ann_One1"), ("Bo Two", "~Bo_Two1")]


@pytest.mark.django_db
def test_a_curators_author_list_is_kept_when_profile_ids_arrive():
    load(record("p1", ["Ann One"]), source="refs.bib")
    Paper.objects.update(curator_edited_fields=["authors"])
    report = load(record("p1", ["Ann One"], ["~Ann_One1"]))
    assert (report.total.updated, report.total.conflicts) == (0, [])
    assert authors_of("p1") == [("Ann One", None)]


@pytest.mark.django_db
def test_profile_ids_are_looked_up_in_one_query_per_batch(django_assert_max_num_queries):
    load(record("p0", ["Someone Else"], ["~Someone_Else1"]))
    few = [record(f"a{n}", [f"Person {n}"], [f"~Person_{n}1"]) for n in range(3)]
    many = [record(f"b{n}", [f"Person {n}"], [f"~Person_{n}1"]) for n in range(3, 300)]
    with django_assert_max_num_queries(60) as few_queries:
        load(*few)
    with django_assert_max_num_queries(len(few_queries)):
        load(*many)
    assert Author.objects.count() == 301


# --- Fetched from OpenReview's API --------------------------------------------------------


@pytest.mark.django_db
@respx.mock
def test_a_fetched_venue_keeps_the_profiles_of_its_authors(settings):
    settings.OPENREVIEW_API_URL = "https://openreview.test"
    notes = [
        v2_note("Note_1", authors=["Wei Zhang", "Ann One"], authorids=["~Wei_Zhang1", "ann@x.org"]),
        v2_note("Note_2", authors=["Wei Zhang"], authorids=["~Wei_Zhang2"]),
    ]
    respx.get("https://openreview.test/notes").mock(
        side_effect=lambda request: httpx.Response(
            200, json=page({("content.venueid", VENUE): notes}, request.url.params)
        )
    )
    fetch_venue_into_catalogue(VENUE)
    assert authors_of("Note_1") == [("Wei Zhang", "~Wei_Zhang1"), ("Ann One", None)]
    assert authors_of("Note_2") == [("Wei Zhang", "~Wei_Zhang2")]


# --- Pages and admin -----------------------------------------------------------------------


@pytest.mark.django_db
def test_an_author_page_links_to_the_openreview_profile_when_known(client):
    known = Author.objects.create(name="Ann One", openreview_id="~Ann_One1")
    unknown = Author.objects.create(name="Bo Two")
    make_paper("A paper", authors=[known, unknown])
    page = client.get(known.get_absolute_url()).content.decode()
    assert 'href="https://openreview.net/profile?id=~Ann_One1"' in page
    assert "openreview.net/profile" not in client.get(unknown.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_admin_lists_and_finds_authors_by_profile_id(admin_client):
    Author.objects.create(name="Wei Zhang", openreview_id="~Wei_Zhang1")
    Author.objects.create(name="Wei Zhang", openreview_id="~Wei_Zhang2")
    url = reverse("admin:papers_author_changelist")
    page = admin_client.get(url, {"q": "~Wei_Zhang2"}).content.decode()
    assert "~Wei_Zhang2" in page and "~Wei_Zhang1" not in page


@pytest.mark.django_db
def test_admin_may_name_two_people_alike_once_each_has_a_profile(admin_client):
    Author.objects.create(name="Wei Zhang", openreview_id="~Wei_Zhang1")
    other = Author.objects.create(name="W. Zhang")
    url = reverse("admin:papers_author_change", args=[other.pk])
    refused = admin_client.post(url, {"name": "Wei Zhang", "openreview_id": ""})
    assert "same name once normalised" in refused.content.decode()
    admin_client.post(url, {"name": "Wei Zhang", "openreview_id": "~Wei_Zhang2"})
    other.refresh_from_db()
    assert (other.name, other.openreview_id) == ("Wei Zhang", "~Wei_Zhang2")


@pytest.mark.django_db
def test_admin_refuses_an_email_address_as_a_profile_id(admin_client):
    author = Author.objects.create(name="Ann One")
    url = reverse("admin:papers_author_change", args=[author.pk])
    response = admin_client.post(url, {"name": "Ann One", "openreview_id": "ann@x.org"})
    assert "starts with ~" in response.content.decode()
    author.refresh_from_db()
    assert author.openreview_id is None


@pytest.mark.django_db
def test_a_merged_author_keeps_the_profile_id_and_two_profiles_are_not_merged():
    kept = Author.objects.create(name="Ann One")
    variant = Author.objects.create(name="A. One", openreview_id="~Ann_One1")
    services.merge_authors(target=kept, others=[variant])
    kept.refresh_from_db()
    assert kept.openreview_id == "~Ann_One1"
    other = Author.objects.create(name="Ann One", openreview_id="~Ann_One2")
    with pytest.raises(services.TwoProfiles):
        services.merge_authors(target=kept, others=[other])
    assert Author.objects.count() == 2
