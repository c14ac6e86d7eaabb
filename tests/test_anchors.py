"""Comments anchored in the abstract: a quote (with context and a position hint) that must be in
the abstract's plain text, re-attached by its quote when the abstract changes, else orphaned
and kept."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotations import anchors
from annotations.anchors import Anchor, locate, plain_text
from annotations.models import QUOTE_MAX_LENGTH, AnchorState, Comment
from papers.importing.pipeline import import_paths
from papers.models import Paper
from papers.services import merge_papers
from tests.factories import make_comment, make_paper

pytestmark = pytest.mark.django_db

ABSTRACT = (
    "We study \\emph{score matching} for diffusion models. The loss $\\|s_\\theta - s\\|^2$ "
    "is cheap.\n\nScore matching is also robust & simple."
)


def post(client, paper, headers=None, **data):
    data.setdefault("body", "About this part")
    url = reverse("annotations:comment-add", args=[paper.pk])
    return client.post(url, data, headers=headers)


# -- the plain text both sides count in -----------------------------------------------------


def test_plain_text_is_the_rendered_abstract_without_tags_with_math_as_its_source():
    assert plain_text(ABSTRACT) == (
        "We study score matching for diffusion models. The loss $\\|s_\\theta - s\\|^2$ "
        "is cheap.\nScore matching is also robust & simple."
    )


def test_locate_prefers_the_occurrence_whose_context_matches_then_the_nearest():
    text = "score matching here; and score matching there; score matching"
    second = text.index("score matching", 1)
    assert locate(text, Anchor("score matching", prefix="; and ", suffix=" there")) == second
    assert locate(text, Anchor("score matching", start=60)) == text.rindex("score matching")
    assert locate(text, Anchor("not here")) is None


# -- posting ----------------------------------------------------------------------------------


def test_anchored_comment_is_saved_with_the_servers_own_context_and_position(client, user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    # The second "Score matching" (capital S), with a stale hint and a context typed wrong.
    response = post(client, paper, quote="Score matching", quote_start="0", quote_suffix="x")
    assert response.status_code == 302
    comment = Comment.objects.get()
    text = plain_text(ABSTRACT)
    assert comment.quote == "Score matching"
    assert comment.quote_start == text.index("Score matching")
    assert comment.quote_prefix == text[: comment.quote_start][-64:]
    assert comment.quote_suffix == " is also robust & simple."
    assert comment.anchor_state == AnchorState.ATTACHED


def test_a_quote_spanning_math_counts_math_as_its_source(client, user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    post(client, paper, quote="loss $\\|s_\\theta - s\\|^2$ is", quote_start="50")
    assert Comment.objects.get().anchor_state == AnchorState.ATTACHED


def test_without_a_quote_a_comment_is_about_the_whole_paper(client, user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    post(client, paper, quote="", quote_prefix="", quote_suffix="", quote_start="")
    comment = Comment.objects.get()
    assert (comment.quote, comment.anchor_state, comment.quote_start) == ("", "", None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"quote": "not in the abstract"}, "not in this paper"),
        ({"quote": "score matching", "quote_start": "x"}, None),  # a bad hint is only ignored
        ({"quote": "score matching", "quote_start": "²"}, None),  # a digit only to isdigit()
        ({"quote": "x" * (QUOTE_MAX_LENGTH + 1)}, "at most 1,000 characters"),
        ({"quote": "score matching", "quote_prefix": "p" * 65}, "too long"),
        ({"quote": "   "}, "is empty"),
    ],
)
def test_a_bad_quote_is_a_form_error_and_nothing_is_saved(client, user, fields, message):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    response = post(client, paper, body="my words", **fields)
    if message is None:
        assert Comment.objects.get().quote == "score matching"
        return
    assert response.status_code == 200
    page = response.content.decode()
    assert message in page
    assert "my words" in page  # the text typed is kept
    assert not Comment.objects.exists()


def test_a_failed_post_keeps_the_quote_in_the_form(client, user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    # The quote comes from anchors.js, so the post comes through htmx: the panel comes back.
    headers = {"HX-Request": "true"}
    response = post(client, paper, headers, body="", quote="score matching", quote_start="9")
    page = response.content.decode()
    assert 'name="quote" value="score matching"' in page
    assert "Commenting on:" in page
    assert not Comment.objects.exists()


def test_replies_cannot_carry_an_anchor(client, user, other_user):
    paper = make_paper(abstract=ABSTRACT)
    parent = make_comment(other_user, paper, "top level")
    client.force_login(user)
    response = post(client, paper, parent=str(parent.pk), quote="score matching")
    assert "A reply cannot quote the abstract" in response.content.decode()
    assert Comment.objects.count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():  # the database refuses one too
        make_comment(user, paper, "reply", parent=parent, quote="score matching")


def test_an_edit_never_changes_the_anchor_and_others_cannot_edit_mine(client, user, other_user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    post(client, paper, quote="score matching")
    comment = Comment.objects.get()
    client.post(
        reverse("annotations:comment-edit", args=[comment.pk]),
        {"body": "edited", "quote": "cheap", "quote_start": "0"},
    )
    client.force_login(other_user)
    response = client.post(
        reverse("annotations:comment-edit", args=[comment.pk]), {"body": "x", "quote": "cheap"}
    )
    assert response.status_code == 404
    comment.refresh_from_db()
    assert (comment.body, comment.quote) == ("edited", "score matching")


def test_the_comment_shows_its_quote_linked_to_its_highlight(client, user):
    paper = make_paper(abstract=ABSTRACT)
    client.force_login(user)
    post(client, paper, quote="is cheap")
    comment = Comment.objects.get()
    page = client.get(paper.get_absolute_url()).content.decode()
    assert f'href="#anchor-{comment.pk}" class="anchor-link">“is cheap”</a>' in page
    assert 'data-anchor-quote="is cheap"' in page


def test_hostile_quote_text_stays_escaped(client, user):
    paper = make_paper(abstract='Look: <script>alert("x")</script> " onmouseover="alert(1)')
    client.force_login(user)
    quote = '<script>alert("x")</script> " onmouseover="alert(1)'
    post(client, paper, quote=quote)
    assert Comment.objects.get().quote == quote
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>alert" not in page
    assert '" onmouseover="alert(1)' not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


# -- the abstract changes ---------------------------------------------------------------------


def anchored(user, paper, quote):
    text = plain_text(paper.abstract)
    start = text.index(quote)
    prefix, suffix = anchors.context_of(text, start, quote)
    return make_comment(
        user,
        paper,
        "about the quote",
        quote=quote,
        quote_prefix=prefix,
        quote_suffix=suffix,
        quote_start=start,
        anchor_state=AnchorState.ATTACHED,
    )


def test_an_edit_that_moves_the_quote_re_anchors_it(user):
    paper = make_paper(abstract=ABSTRACT)
    comment = anchored(user, paper, "is cheap")
    paper.abstract = "A new first sentence. " + ABSTRACT
    paper.save()
    comment.refresh_from_db()
    assert comment.anchor_state == AnchorState.ATTACHED
    assert comment.quote_start == plain_text(paper.abstract).index("is cheap")
    assert comment.edited_at is None  # re-anchoring is no edit


def test_an_edit_that_deletes_the_quote_orphans_it_but_keeps_it_listed(client, user):
    paper = make_paper(abstract=ABSTRACT)
    comment = anchored(user, paper, "is cheap")
    paper.abstract = "Entirely rewritten by a curator."
    paper.save()
    comment.refresh_from_db()
    assert (comment.anchor_state, comment.quote, comment.quote_start) == (
        AnchorState.ORPHANED,
        "is cheap",
        None,
    )
    client.force_login(user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "The quoted text is no longer in the abstract." in page
    assert "“is cheap”" in page
    assert "data-anchor-quote" not in page  # nothing to highlight
    # The words come back: the comment attaches again.
    paper.abstract = ABSTRACT
    paper.save()
    comment.refresh_from_db()
    assert comment.anchor_state == AnchorState.ATTACHED


def test_saves_that_do_not_touch_the_abstract_cost_no_query(user, django_assert_num_queries):
    paper = make_paper(abstract=ABSTRACT)
    anchored(user, paper, "is cheap")
    with django_assert_num_queries(1):  # the update itself
        paper.save(update_fields=["needs_curation"])


def test_an_import_that_changes_the_abstract_re_anchors(user, tmp_path):
    source = tmp_path / "papers.jsonl"
    record = {"forum_id": "anch1", "title": "Anchors", "abstract": ABSTRACT, "authors": ["A B"]}
    source.write_text(json.dumps(record) + "\n")
    import_paths([source])
    paper = Paper.objects.get(forum_id="anch1")
    moved = anchored(user, paper, "is cheap")
    lost = anchored(user, paper, "diffusion models")
    record["abstract"] = "Preface. " + ABSTRACT.replace("diffusion models", "generative models")
    source.write_text(json.dumps(record) + "\n")
    import_paths([source])
    paper.refresh_from_db()
    assert paper.abstract == record["abstract"]
    moved.refresh_from_db()
    lost.refresh_from_db()
    assert moved.anchor_state == AnchorState.ATTACHED
    assert moved.quote_start == plain_text(record["abstract"]).index("is cheap")
    assert (lost.anchor_state, lost.quote) == (AnchorState.ORPHANED, "diffusion models")


def test_comments_moved_by_a_paper_merge_re_anchor_to_the_kept_abstract(user):
    keep = make_paper(abstract="Kept abstract: " + ABSTRACT)
    duplicate = make_paper(abstract=ABSTRACT + " Only in the duplicate.")
    shared = anchored(user, duplicate, "is cheap")
    lost = anchored(user, duplicate, "Only in the duplicate.")
    merge_papers(target=keep, others=[duplicate])
    shared.refresh_from_db()
    lost.refresh_from_db()
    assert (shared.paper, shared.anchor_state) == (keep, AnchorState.ATTACHED)
    assert shared.quote_start == plain_text(keep.abstract).index("is cheap")
    assert (lost.paper, lost.anchor_state) == (keep, AnchorState.ORPHANED)


def test_quotes_taken_before_dashes_were_typeset_are_rewritten_and_stay_anchored(user):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotations.migrations.0007_anchor_quotes_with_dashes")
    paper = make_paper(abstract="Score functions---learned once---are reused in steps 1--10.")
    # As a quote was stored before: taken from the page when it showed the hyphens.
    old = make_comment(
        user,
        paper,
        "about the quote",
        quote="learned once---are reused",
        quote_prefix="Score functions---",
        quote_suffix=" in steps 1--10.",
        quote_start=18,
        anchor_state=AnchorState.ATTACHED,
    )
    untouched = anchored(user, paper, "Score functions")
    migration.rewrite_dashes(apps, None)
    old.refresh_from_db()
    assert (old.quote, old.quote_prefix, old.quote_suffix) == (
        "learned once\u2014are reused",
        "Score functions\u2014",
        " in steps 1\u201310.",
    )
    text = plain_text(paper.abstract)
    anchor = Anchor(old.quote, old.quote_prefix, old.quote_suffix, old.quote_start)
    assert locate(text, anchor) == text.index("learned once")
    untouched.refresh_from_db()
    assert untouched.quote == "Score functions"
