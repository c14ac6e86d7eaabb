"""Merging tags in the admin: spellings of one keyword, venue or lab tag become one tag, and
stay one when imports bring the old spellings again."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.http import QueryDict
from django.urls import reverse

from annotations.services import add_lab_tag
from papers.filters import PaperFilter
from papers.importing.pipeline import import_paths
from papers.models import Paper, PaperTag, Tag, TagAlias, TagKind
from papers.tags.service import merge_tags
from tests.factories import make_lab_tag, make_paper, make_tag, make_user
from tests.test_keyword_facets import facet

TAGS = "admin:papers_tag_changelist"
KEYWORD = TagKind.KEYWORD

pytestmark = pytest.mark.django_db


def keyword(name: str) -> Tag:
    return Tag.objects.get(kind=KEYWORD, name=name)


def tag_names(paper: Paper, kind: str = KEYWORD) -> list[str]:
    return sorted(paper.tags.filter(kind=kind).values_list("name", flat=True))


def merge_post(client, tags: list[Tag], *, keep: Tag | None = None):
    data = {"action": "merge_tags", "_selected_action": [t.pk for t in tags]}
    if keep is not None:
        data.update(confirm="yes", target=keep.pk)
    return client.post(reverse(TAGS), data, follow=keep is not None)


@pytest.fixture
def spellings(db):
    """Three papers whose keywords spell one topic two ways; one has both spellings."""
    return {
        "plural": make_paper("One", tags=[("large language models", KEYWORD)]),
        "singular": make_paper("Two", tags=[("large language model", KEYWORD)]),
        "both": make_paper(
            "Three", tags=[("large language models", KEYWORD), ("large language model", KEYWORD)]
        ),
        "plural too": make_paper("Four", tags=[("large language models", KEYWORD)]),
    }


def test_the_action_asks_which_tag_to_keep_defaulting_to_the_one_with_most_papers(
    admin_client, spellings
):
    response = merge_post(
        admin_client, [keyword("large language model"), keyword("large language models")]
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "large language models (3 papers)" in html
    assert "large language model (2 papers)" in html
    assert response.context["form"].initial["target"] == keyword("large language models")


def test_merging_moves_every_paper_to_the_kept_tag_once(admin_client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    response = merge_post(admin_client, [kept, merged], keep=kept)
    message = str(next(iter(get_messages(response.wsgi_request))))
    assert message == (
        "Merged “large language model” into “large language models”: 1 paper moved, "
        "1 paper had it already."
    )
    for paper in spellings.values():
        assert tag_names(paper) == ["large language models"]
    assert not Tag.objects.filter(pk=merged.pk).exists()
    alias = TagAlias.objects.get()
    assert (alias.kind, alias.name, alias.tag) == (KEYWORD, "large language model", kept)


def test_the_list_counts_the_merged_tag_once(client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    html = client.get(reverse("papers:list")).content.decode()
    assert facet(html, "keyword") == {"large language models": 4}


def test_a_lab_tag_merge_keeps_who_added_it(db):
    ann = make_user("ann")
    paper = make_paper("One")
    make_lab_tag(paper, "RL", added_by=ann)
    kept = make_tag("reinforcement learning", TagKind.LAB)
    merge_tags(target=kept, others=[make_tag("RL", TagKind.LAB)])
    assert list(PaperTag.objects.values_list("paper", "tag", "added_by")) == [
        (paper.pk, kept.pk, ann.pk)
    ]


def test_a_member_typing_a_merged_lab_tag_gets_the_kept_one(db):
    ann = make_user("ann")
    paper = make_paper("One")
    kept = make_tag("reinforcement learning", TagKind.LAB)
    merge_tags(target=kept, others=[make_tag("RL", TagKind.LAB)])
    assert add_lab_tag(user=ann, paper=paper, name="rl").tag == kept
    assert not Tag.objects.filter(kind=TagKind.LAB, key="rl").exists()


def test_tags_of_different_kinds_or_decisions_are_not_merged(admin_client, db):
    make_paper("One", tags=[("ICLR 2024", TagKind.VENUE), ("ICLR", KEYWORD)])
    make_paper("Two", tags=[("Accept", TagKind.DECISION), ("Accepted", TagKind.DECISION)])
    for kinds in ([TagKind.VENUE, KEYWORD], [TagKind.DECISION]):
        tags = list(Tag.objects.filter(kind__in=kinds))
        response = merge_post(admin_client, tags, keep=tags[0])
        assert "Merge tags of one kind at a time" in response.content.decode()
    assert Tag.objects.count() == 4 and not TagAlias.objects.exists()


def test_curators_without_delete_permission_are_not_offered_the_merge(client, spellings):
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_tag", "change_tag"])
    )
    client.force_login(curator)
    response = client.get(reverse(TAGS))
    assert "merge_tags" not in response.content.decode()
    merge_post(client, list(Tag.objects.all()), keep=keyword("large language models"))
    assert Tag.objects.filter(kind=KEYWORD).count() == 2


def test_an_import_spelling_a_merged_tag_tags_papers_with_the_kept_one(tmp_path, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    record = {
        "title": "Five",
        "url": "https://openreview.net/forum?id=five",
        "abstract": "Five.",
        "authors": ["A. Person"],
        "keywords": ["Large Language Model", "LLM"],
    }
    path = tmp_path / "five.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    first = import_paths([str(path)]).total
    again = import_paths([str(path)]).total
    assert (first.created, again.created, again.updated) == (1, 0, 0)
    assert tag_names(Paper.objects.get(title="Five")) == ["LLM", "large language models"]
    assert not Tag.objects.filter(kind=KEYWORD, name__iexact="large language model").exists()


def test_old_links_to_a_merged_tag_lead_to_the_kept_one(client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    page = client.get(reverse("papers:tag", args=[KEYWORD, merged.slug]))
    assert (page.status_code, page.url) == (301, kept.get_absolute_url())
    listing = client.get(reverse("papers:list"), {"keyword": [merged.slug, kept.slug], "q": "x"})
    assert listing.status_code == 301
    assert listing.url == f"/?keyword={kept.slug}&q=x"
    missing = client.get(reverse("papers:tag", args=[KEYWORD, "no-such-tag"]))
    assert missing.status_code == 404


def test_an_old_link_to_a_page_of_a_merged_tag_keeps_its_page(client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    page = client.get(reverse("papers:tag", args=[KEYWORD, merged.slug]), {"page": "2"})
    assert (page.status_code, page.url) == (301, f"{kept.get_absolute_url()}?page=2")


def test_a_tag_cannot_be_named_as_a_spelling_merged_into_another(admin_client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    response = admin_client.post(
        reverse("admin:papers_tag_add"), {"name": "Large language model", "kind": KEYWORD}
    )
    assert "was merged into “large language models”" in response.content.decode()
    assert Tag.objects.filter(kind=KEYWORD).count() == 1


def test_a_saved_filter_on_a_merged_tag_filters_by_the_kept_one(spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    filters = PaperFilter(QueryDict(f"keyword={merged.slug}"))
    assert filters.selection.ids("keyword") == {kept.pk}
    assert filters.selection.ignored == []


def test_the_kept_tag_lists_its_merged_spellings(admin_client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    html = admin_client.get(reverse("admin:papers_tag_change", args=[kept.pk])).content.decode()
    section = html[html.lower().index("merged spellings") :]
    assert "large language model" in section.replace("large language models", "")


def test_a_curator_who_may_view_tags_sees_their_merged_spellings(client, spellings):
    # TagAlias has no admin of its own, so nobody is given its permissions: the list follows
    # the tag's, read-only.
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(*Permission.objects.filter(codename__in=["view_tag"]))
    client.force_login(curator)
    html = client.get(reverse("admin:papers_tag_change", args=[kept.pk])).content.decode()
    section = html[html.lower().index("merged spellings") :]
    assert "large language model" in section.replace("large language models", "")


# --- spelling variants ----------------------------------------------------------------------


@pytest.fixture
def variants(db):
    make_paper("One", tags=[("diffusion models", KEYWORD), ("LLMs", KEYWORD)])
    make_paper("Two", tags=[("Diffusion_Models", KEYWORD), ("LLM", KEYWORD)])
    make_paper("Three", tags=[("diffusion model", KEYWORD), ("LLM", KEYWORD)])
    make_paper("Four", tags=[("diffusion models", KEYWORD), ("diffusion", KEYWORD)])
    make_paper("Five", tags=[("LLM", TagKind.LAB)])  # another kind: not a variant


def test_the_tag_list_filters_tags_with_spelling_variants(admin_client, variants):
    response = admin_client.get(reverse(TAGS), {"variants": "yes"})
    assert sorted(t.name for t in response.context["cl"].result_list) == [
        "Diffusion_Models",
        "LLM",
        "LLMs",
        "diffusion model",
        "diffusion models",
    ]


def test_merging_spelling_variants_confirms_then_merges_each_group(admin_client, variants):
    chosen = [t.pk for t in Tag.objects.filter(kind=KEYWORD)]
    data = {"action": "merge_spelling_variants", "_selected_action": chosen}
    page = admin_client.post(reverse(TAGS), data)
    html = page.content.decode()
    assert page.status_code == 200 and 'value="Merge 2 groups"' in html
    assert "<strong>diffusion models</strong> (2 papers)" in html
    assert "<strong>LLM</strong> (2 papers)" in html
    assert Tag.objects.count() == 7  # nothing merged before the confirmation

    done = admin_client.post(reverse(TAGS), {**data, "confirm": "yes"}, follow=True)
    message = str(next(iter(get_messages(done.wsgi_request))))
    assert message == "Merged 3 tags into 2 kept tags."
    html = admin_client.get(reverse("papers:list")).content.decode()
    assert facet(html, "keyword") == {"diffusion models": 4, "LLM": 3, "diffusion": 1}
    assert TagAlias.objects.count() == 3


def test_selected_tags_without_variants_are_left_alone(admin_client, variants):
    tags = [keyword("diffusion"), keyword("LLM")]
    data = {"action": "merge_spelling_variants", "_selected_action": [t.pk for t in tags]}
    response = admin_client.post(reverse(TAGS), data, follow=True)
    assert "No two of the selected tags are spellings of one." in response.content.decode()
    assert not TagAlias.objects.exists()


def test_a_stale_alias_spelt_like_a_merged_tag_gives_way(db):
    # A tag made in the shell despite an alias of its spelling; merging it replaces the alias.
    old = make_tag("graph nets", KEYWORD)
    merge_tags(target=make_tag("GNN", KEYWORD), others=[old])
    again = make_tag("graph nets", KEYWORD)
    kept = make_tag("graph neural networks", KEYWORD)
    merge_tags(target=kept, others=[again])
    assert TagAlias.objects.get(key="graph nets").tag == kept


def test_a_tag_others_were_merged_into_keeps_its_kind(admin_client, spellings):
    kept, merged = keyword("large language models"), keyword("large language model")
    merge_tags(target=kept, others=[merged])
    url = reverse("admin:papers_tag_change", args=[kept.pk])
    response = admin_client.post(url, {"name": kept.name, "kind": TagKind.LAB})
    assert "it keeps its kind" in response.content.decode()
    kept.refresh_from_db()
    assert kept.kind == KEYWORD


def test_the_tag_list_puts_spellings_side_by_side(admin_client, db):
    for name in ["Language model", "graphs", "language models", "Zebra"]:
        make_tag(name, KEYWORD)
    response = admin_client.get(reverse(TAGS), {"kind__exact": KEYWORD})
    names = [t.name for t in response.context["cl"].result_list]
    assert names == ["graphs", "Language model", "language models", "Zebra"]
