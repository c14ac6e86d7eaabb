"""Issue 29, point 3: one tag service (papers.tags). Names with nothing to slugify (emoji,
punctuation) get stable, distinct slugs; a key over its column is cut or refused the same way
on SQLite and PostgreSQL (run this file on both: DATABASE_URL=postgres://...); a merged tag's
spelling means the kept tag in URLs, exports, imports and members' lab tags."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.urls import reverse

from annotations.export_sources import source_for_path
from annotations.services import add_lab_tag
from papers.filters import PaperFilter
from papers.models import Paper, PaperTag, Review, Tag, TagAlias, TagKind
from papers.tags.identity import (
    MAX_TAG_KEY,
    TagNameRefused,
    cut_to_fit,
    looks_like_slug,
    number_slugs,
    tag_key,
    tag_slug,
)
from papers.tags.service import merge_tags, tags_named
from papers.text import MAX_TAG_NAME
from tests.factories import make_paper, make_tag, make_user

KEYWORD, LAB = TagKind.KEYWORD, TagKind.LAB
# Names slugify keeps nothing of: each needs a slug of its own.
UNSLUGGABLE = ["🚀", "🔥", "🔥🔥", "?!", "!?", "___", "—", "∑"]
# "ß" folds to "ss": 50 of them make a key exactly at its column's limit, 51 one past it.
AT_LIMIT = "ß" * (MAX_TAG_KEY // 2)
PAST_LIMIT = "ß" * (MAX_TAG_KEY // 2 + 1)


def test_names_with_nothing_to_slugify_get_distinct_valid_slugs():
    slugs = [tag_slug(name) for name in UNSLUGGABLE]
    assert len(set(slugs)) == len(UNSLUGGABLE)
    assert all(slug and looks_like_slug(slug) for slug in slugs)


def test_a_hashed_slug_is_stable_across_spellings_of_one_key():
    # The slug follows the key: the same name spaced or composed otherwise has the same slug.
    assert tag_slug("🚀") == tag_slug("  🚀 ")
    assert tag_slug("Ω?!") == tag_slug("\u2126?!")  # OHM SIGN is Ω under NFKC
    assert tag_slug("🚀") != tag_slug("🚀🚀")


@pytest.mark.django_db
def test_emoji_only_lab_tags_are_distinct_tags_each_at_its_own_address(client):
    member, paper = make_user("emoji"), make_paper()
    for name in UNSLUGGABLE:
        add_lab_tag(user=member, paper=paper, name=name)
    tags = Tag.objects.filter(kind=LAB)
    assert sorted(tags.values_list("name", flat=True)) == sorted(UNSLUGGABLE)
    for tag in tags:
        page = client.get(tag.get_absolute_url())
        assert page.status_code == 200 and tag.name in page.content.decode()


@pytest.mark.django_db
def test_emoji_only_keywords_imported_are_distinct_tags(tmp_path):
    record = {"forum_id": "emo1", "title": "Emoji", "abstract": "A.", "keywords": UNSLUGGABLE}
    path = tmp_path / "emoji.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    call_command("import_papers", str(path), stdout=io.StringIO())
    keywords = Tag.objects.filter(kind=KEYWORD)
    assert sorted(keywords.values_list("name", flat=True)) == sorted(UNSLUGGABLE)
    assert sorted(keywords.values_list("slug", flat=True)) == sorted(map(tag_slug, UNSLUGGABLE))


def test_the_limit_checked_is_the_columns_own():
    for model in (Tag, TagAlias):
        assert model._meta.get_field("key").max_length == MAX_TAG_KEY
        assert model._meta.get_field("slug").max_length == MAX_TAG_KEY


@pytest.mark.django_db
def test_a_key_at_its_column_limit_is_stored_whole():
    tag = Tag.objects.create(kind=LAB, name=AT_LIMIT)
    tag.refresh_from_db()
    assert (tag.name, len(tag.key)) == (AT_LIMIT, MAX_TAG_KEY)


@pytest.mark.django_db
def test_a_key_past_its_column_limit_is_refused_before_the_database():
    # SQLite would store it, PostgreSQL refuse it: both refuse it, in Python.
    assert len(PAST_LIMIT) <= MAX_TAG_NAME < len(tag_key(PAST_LIMIT))
    with pytest.raises(TagNameRefused):
        Tag.objects.create(kind=LAB, name=PAST_LIMIT)
    with pytest.raises(TagNameRefused):
        Tag.unsaved(KEYWORD, PAST_LIMIT, slug="long")
    assert not Tag.objects.exists()
    # Spaces around a name are not stored, so they do not count against it.
    assert Tag.objects.create(kind=LAB, name=AT_LIMIT + " " * MAX_TAG_NAME).name == AT_LIMIT


@pytest.mark.django_db
def test_a_member_is_told_a_tag_whose_key_is_too_long_is_refused(client):
    paper = make_paper()
    client.force_login(make_user("member"))
    url = reverse("annotations:tag-add", args=[paper.pk])
    # 34 characters, within the form's length: "ΐ" folds to three, so the key has 102.
    name = "\u0390" * 34
    assert len(tag_key(name)) > MAX_TAG_KEY
    response = client.post(url, {"name": name}, follow=True)
    assert f"A tag is at most {MAX_TAG_NAME} characters long." in response.content.decode()
    assert not Tag.objects.exists()


@pytest.mark.django_db
def test_an_imported_keyword_with_a_key_too_long_is_cut_as_the_rule_cuts_it(tmp_path):
    record = {"forum_id": "long1", "title": "Long", "abstract": "A.", "keywords": [PAST_LIMIT]}
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    out = io.StringIO()
    call_command("import_papers", str(path), stdout=out)
    keyword = Tag.objects.get(kind=KEYWORD)
    assert keyword.name == cut_to_fit(PAST_LIMIT)
    assert keyword.name.startswith("ßß") and len(keyword.key) <= MAX_TAG_KEY
    assert "long.jsonl:1" in out.getvalue() and "cut at a word boundary" in out.getvalue()


@pytest.fixture
def merged_rocket(db) -> tuple[Tag, Tag]:
    """The keyword "🚀" merged into "rockets", each on a paper."""
    kept, merged = make_tag("rockets", KEYWORD), make_tag("🚀", KEYWORD)
    make_paper("Kept", tags=[("rockets", KEYWORD)])
    make_paper("Merged", tags=[("🚀", KEYWORD)])
    merge_tags(target=kept, others=[merged])
    return kept, merged


def test_a_merged_emoji_keyword_leads_to_the_kept_one_in_urls(client, merged_rocket):
    kept, merged = merged_rocket
    page = client.get(reverse("papers:tag", args=[KEYWORD, merged.slug]))
    assert (page.status_code, page.url) == (301, kept.get_absolute_url())
    selection = PaperFilter(QueryDict(f"keyword={merged.slug}")).selection
    assert (selection.ids("keyword"), selection.ignored) == ({kept.pk}, [])


def test_a_merged_keyword_s_export_address_exports_the_kept_tag(merged_rocket):
    kept, merged = merged_rocket
    path = reverse("annotations:tag-export", args=[KEYWORD, merged.slug, "bib"])
    source, extension = source_for_path(make_user("reader"), path)
    assert (source.name, source.count, extension) == ("rockets", 2, "bib")


def test_an_import_or_a_member_naming_a_merged_keyword_gets_the_kept_one(tmp_path, merged_rocket):
    kept, _ = merged_rocket
    record = {"forum_id": "r1", "title": "New rocket", "abstract": "B.", "keywords": ["🚀"]}
    path = tmp_path / "rocket.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    call_command("import_papers", str(path), stdout=io.StringIO())
    paper = Paper.objects.get(forum_id="r1")
    assert list(paper.tags.values_list("pk", flat=True)) == [kept.pk]
    assert tags_named([(KEYWORD, " 🚀"), (KEYWORD, "Rockets")]) == [kept]
    assert Tag.objects.filter(kind=KEYWORD).count() == 1


@pytest.mark.django_db
def test_tags_named_creates_missing_tags_with_free_slugs():
    make_tag("C", LAB)
    plus, hashed = tags_named([(LAB, "C++"), (LAB, "🚀")])
    assert (plus.slug, hashed.slug) == ("c-2", tag_slug("🚀"))
    assert PaperTag.objects.count() == 0 and Tag.objects.filter(kind=LAB).count() == 3


@pytest.mark.django_db
def test_a_decision_whose_key_is_too_long_is_cut_as_an_imported_tag_is():
    # A reviewer's decision fits its own column (100 characters) but folds to a longer key.
    paper = make_paper(decision=PAST_LIMIT)
    Review.objects._tag_decisions([paper])
    decision = Tag.objects.get(kind=TagKind.DECISION)
    assert decision.name == cut_to_fit(PAST_LIMIT) and len(decision.key) <= MAX_TAG_KEY
    assert list(paper.tags.all()) == [decision]


def test_only_the_tag_service_and_the_resolver_read_or_write_merged_spellings():
    """Two homes: the tag service matches spellings by name and writes them; papers.identity
    answers old addresses (slugs), with merged papers' and authors' ids. A new caller that
    looked TagAlias up itself would miss their rules."""
    root = Path(__file__).resolve().parents[1]
    apps = ["papers", "annotations", "alerts", "recommendations", "operations", "pdfs"]
    readers = {
        str(path.relative_to(root))
        for app in apps
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts and "TagAlias.objects" in path.read_text("utf-8")
    }
    assert readers == {"papers/tags/service.py", "papers/identity.py"}


# --- Numbering slugs that several tags would share (pure: the stored slugs are a stand-in) ---


class StoredSlugs:
    """Answers `number_slugs`' questions about stored (kind, slug) pairs, counting them."""

    def __init__(self, *stored: tuple[str, str]) -> None:
        self.stored = set(stored)
        self.asked = 0

    def __call__(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        self.asked += 1
        return [pair for pair in pairs if pair in self.stored]


def test_keys_sharing_a_slug_are_numbered_in_key_order():
    missing = {("venue", "iclr 2024"): "ICLR 2024", ("venue", "iclr 2024!"): "ICLR 2024!"}
    assert number_slugs(missing, StoredSlugs()) == {
        ("venue", "iclr 2024"): "iclr-2024",
        ("venue", "iclr 2024!"): "iclr-2024-2",
    }


def test_a_stored_slug_is_skipped_and_kinds_number_apart():
    stored = StoredSlugs(("venue", "iclr-2024"), ("venue", "iclr-2024-2"))
    missing = {("venue", "iclr 2024?"): "ICLR 2024?", ("keyword", "iclr 2024"): "ICLR 2024"}
    assert number_slugs(missing, stored) == {
        ("venue", "iclr 2024?"): "iclr-2024-3",
        ("keyword", "iclr 2024"): "iclr-2024",
    }


def test_many_tags_on_one_slug_cost_a_few_questions_not_one_each():
    stored = StoredSlugs(*[("keyword", f"llm-{n}") for n in range(2, 40)], ("keyword", "llm"))
    missing = {("keyword", "llm" + "!" * n): "LLM" + "!" * n for n in range(1, 51)}
    slugs = number_slugs(missing, stored)
    assert sorted(slugs.values(), key=lambda s: int(s.rsplit("-", 1)[1])) == [
        f"llm-{n}" for n in range(40, 90)
    ]
    assert stored.asked <= 4


def test_a_numbered_slug_is_never_also_another_names_own_slug():
    """The slug of "ICLR 2024 2" is what a second "ICLR 2024" is numbered: each gets its own."""
    missing = {
        ("venue", "iclr 2024"): "ICLR 2024",
        ("venue", "iclr 2024!"): "ICLR 2024!",
        ("venue", "iclr 2024 2"): "ICLR 2024 2",
    }
    slugs = number_slugs(missing, StoredSlugs())
    assert len(set(slugs.values())) == 3


def test_a_refused_tag_name_is_quoted_in_the_message_up_to_forty_characters():
    name = "x" * 45 + "y" * (MAX_TAG_KEY)
    with pytest.raises(TagNameRefused) as refused:
        Tag(kind=TagKind.KEYWORD, name=name).save()
    assert repr("x" * 40) + "..." in str(refused.value)
