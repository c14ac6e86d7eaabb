"""Issue 39, point 7: the curation queue offers spellings of one tag for merging ("Diffusion
Models" / "Diffusion model"), with each spelling's paper count; one click merges them into the
most used spelling through the tag service; a dismissed group is not offered again; only who may
merge tags sees or posts it."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from papers.models import DismissedTagVariant, PaperTag, Tag, TagAlias, TagKind
from papers.tags.identity import spelling_key
from papers.tags.service import tags_named
from papers.tags.variants import merge_suggestions
from tests.access_world import make_curator
from tests.factories import make_paper, make_user

KEYWORD = TagKind.KEYWORD
MERGE = "admin:papers_tag_variants_merge"
DISMISS = "admin:papers_tag_variants_dismiss"

pytestmark = pytest.mark.django_db


def make_tag(name: str, kind: str) -> Tag:
    # As imports make tags: "Self-Supervised" and "self supervised" share a slug, numbered.
    [tag] = tags_named([(kind, name)])
    return tag


def tag_papers(name: str, count: int, kind: str = KEYWORD) -> Tag:
    tag = make_tag(name, kind)
    for _ in range(count):
        PaperTag.objects.create(paper=make_paper(), tag=tag)
    return tag


@pytest.fixture
def fetched(db) -> dict[str, Tag]:
    """What a venue fetch left: two keywords each spelt two ways, and one spelt once."""
    return {
        name: tag_papers(name, count)
        for name, count in [
            ("Diffusion Models", 9),
            ("Diffusion model", 8),
            ("Transformers", 5),
            ("Transformer", 4),
            ("Graph neural networks", 3),
        ]
    }


@pytest.fixture
def curator_client(client):
    client.force_login(make_curator())
    return client


def offered(suggestions) -> list[list[tuple[str, int]]]:
    return [[(tag.name, tag.paper_count) for tag in s.tags] for s in suggestions.shown]


def merge_post(client, target: Tag, *others: Tag):
    return client.post(reverse(MERGE), {"target": target.pk, "tag": [t.pk for t in others]})


def test_four_spellings_give_two_suggestions_with_counts_most_papers_first(fetched):
    suggestions = merge_suggestions()
    assert offered(suggestions) == [
        [("Diffusion Models", 9), ("Diffusion model", 8)],
        [("Transformers", 5), ("Transformer", 4)],
    ]
    assert suggestions.total == 2


def test_the_admin_index_shows_them_with_counts_and_a_merge_button(curator_client, fetched):
    html = curator_client.get(reverse("admin:index")).content.decode()
    assert "2 tags spelt in several ways" in html
    assert "“Diffusion Models” (9 papers), “Diffusion model” (8 papers)" in html
    assert "Merge into “Diffusion Models”" in html
    assert "Merge into “Transformers”" in html
    assert 'name="csrfmiddlewaretoken"' in html


@pytest.mark.parametrize(
    ("names", "same"),
    [
        (["Diffusion", "Diffusions"], True),
        (["Class", "Clas"], False),
        (["Self-Supervised", "self supervised"], True),
        (["Self-Supervised learning", "self_supervised Learning"], True),
        (["Study", "Studies"], True),
        (["Process", "Processes"], True),
        (["Class", "Classes"], True),
        (["Diffusion Models", "DIFFUSION-MODELS"], True),
        (["Dynamics", "Dynamic"], True),  # a hint only: the curator may dismiss it
        (["Graph", "Graphs neural"], False),
    ],
)
def test_spellings_apart_by_case_plural_or_hyphens_are_variants(names, same):
    assert (len({spelling_key(name) for name in names}) == 1) is same
    for name in names:
        make_tag(name, KEYWORD)
    assert (merge_suggestions().total == 1) is same


def test_tags_of_different_kinds_or_decisions_are_not_variants(db):
    make_tag("Transformers", KEYWORD)
    make_tag("Transformer", TagKind.LAB)
    make_tag("Accept", TagKind.DECISION)
    make_tag("Accepts", TagKind.DECISION)
    assert merge_suggestions().total == 0


def test_one_click_merges_into_the_most_used_spelling(curator_client, fetched):
    kept, merged = fetched["Diffusion Models"], fetched["Diffusion model"]
    old_url = reverse("papers:tag", args=[KEYWORD, merged.slug])
    response = merge_post(curator_client, kept, merged)
    assert (response.status_code, response.url) == (302, reverse("admin:index"))
    message = str(next(iter(get_messages(response.wsgi_request))))
    assert message == (
        "Merged “Diffusion model” into “Diffusion Models”: 8 papers moved, 0 papers had it already."
    )
    assert PaperTag.objects.filter(tag=kept).count() == 17
    assert not Tag.objects.filter(pk=merged.pk).exists()
    alias = TagAlias.objects.get()
    assert (alias.name, alias.tag) == ("Diffusion model", kept)
    # The old tag page leads to the kept one, as every merged tag's does.
    page = curator_client.get(old_url)
    assert (page.status_code, page.url) == (301, kept.get_absolute_url())
    assert offered(merge_suggestions()) == [[("Transformers", 5), ("Transformer", 4)]]


def test_the_merge_is_in_the_tags_history(curator_client, fetched):
    merge_post(curator_client, fetched["Transformers"], fetched["Transformer"])
    page = curator_client.get(
        reverse("admin:papers_tag_history", args=[fetched["Transformers"].pk])
    )
    assert "Merged “Transformer” into “Transformers”" in page.content.decode()


def test_tags_that_are_not_spellings_of_one_are_refused(curator_client, fetched):
    response = merge_post(curator_client, fetched["Transformers"], fetched["Diffusion model"])
    message = str(next(iter(get_messages(response.wsgi_request))))
    assert message == "These tags are not spellings of one tag."
    assert Tag.objects.count() == 5 and not TagAlias.objects.exists()


@pytest.mark.parametrize(
    "data", [{}, {"target": "abc", "tag": "1"}, {"target": "1", "tag": "99999999999999999999"}]
)
def test_a_hand_made_merge_request_is_refused_with_a_message(curator_client, fetched, data):
    response = curator_client.post(reverse(MERGE), data)
    assert response.status_code == 302
    assert Tag.objects.count() == 5 and not TagAlias.objects.exists()


def test_a_dismissed_group_is_not_suggested_again(curator_client, fetched):
    transformers = [fetched["Transformers"], fetched["Transformer"]]
    response = curator_client.post(reverse(DISMISS), {"tag": [t.pk for t in transformers]})
    assert response.status_code == 302
    assert offered(merge_suggestions()) == [[("Diffusion Models", 9), ("Diffusion model", 8)]]
    html = curator_client.get(reverse("admin:index")).content.decode()
    assert "No longer suggested for merging: “Transformer”, “Transformers”." in html
    assert "Merge into “Transformers”" not in html and "1 tag spelt in several ways" in html
    row = DismissedTagVariant.objects.get()
    assert (row.key, row.other_key, row.dismissed_by.username) == (
        "transformer",
        "transformers",
        "curator",
    )
    # Dismissed twice (two curators at once): still one row, nothing refused.
    curator_client.post(reverse(DISMISS), {"tag": [t.pk for t in transformers]})
    assert DismissedTagVariant.objects.count() == 1


def test_a_new_spelling_brings_a_dismissed_group_back(curator_client, db):
    pair = [make_tag("Self-Supervised", KEYWORD), make_tag("self supervised", KEYWORD)]
    curator_client.post(reverse(DISMISS), {"tag": [t.pk for t in pair]})
    make_tag("SELF SUPERVISED", KEYWORD)  # a key already there: the same tag, nothing new
    make_tag("self supervised", TagKind.LAB)  # another kind
    assert merge_suggestions().total == 0
    third = make_tag("self_supervised", KEYWORD)
    assert offered(merge_suggestions()) == [
        [("Self-Supervised", 0), ("self supervised", 0), ("self_supervised", 0)]
    ]
    # Dismissing the three remembers the new pairs too.
    curator_client.post(reverse(DISMISS), {"tag": [*(t.pk for t in pair), third.pk]})
    assert merge_suggestions().total == 0 and DismissedTagVariant.objects.count() == 3


def test_a_member_or_a_staff_user_without_tag_permissions_neither_sees_nor_posts(client, fetched):
    kept, merged = fetched["Diffusion Models"], fetched["Diffusion model"]
    # A positive control: the curator is offered the merge.
    client.force_login(make_curator())
    assert "Merge into “Diffusion Models”" in client.get(reverse("admin:index")).content.decode()

    client.force_login(make_user("staff", is_staff=True))
    html = client.get(reverse("admin:index")).content.decode()
    assert "Diffusion" not in html and "spelt in several ways" not in html
    assert merge_post(client, kept, merged).status_code == 403
    assert client.post(reverse(DISMISS), {"tag": [kept.pk, merged.pk]}).status_code == 403

    client.force_login(make_user("member"))
    response = merge_post(client, kept, merged)
    assert response.status_code == 302 and response.url.startswith(reverse("admin:login"))
    assert Tag.objects.count() == 5
    assert not TagAlias.objects.exists() and not DismissedTagVariant.objects.exists()


def test_a_get_is_refused(curator_client, fetched):
    assert curator_client.get(reverse(MERGE)).status_code == 405
    assert curator_client.get(reverse(DISMISS)).status_code == 405


@pytest.mark.slow
def test_suggestions_over_100_000_tags_are_found_in_a_few_queries(
    db, django_assert_max_num_queries
):
    # 100,000 keywords, one in fifty with a plural spelling beside it: the GROUP BY on the
    # (kind, spelling_key) index finds the 2,000 groups without reading names in Python. Its
    # time is a benchmark's figure (docs/design.md), not this test's: a query count does not
    # depend on how busy the machine is.
    names = [f"topic {n:06d}" for n in range(98_000)]
    names += [f"topic {n:06d}s" for n in range(0, 98_000, 49)]
    Tag.objects.bulk_create(
        (Tag.unsaved(KEYWORD, name, slug=f"t{n}") for n, name in enumerate(names)),
        batch_size=5_000,
    )
    assert Tag.objects.count() == 100_000
    with django_assert_max_num_queries(4):
        suggestions = merge_suggestions()
        assert suggestions.total == 2_000 and len(suggestions.shown) == 10
