"""Lab tags: any member tags a paper; spellings that normalise equal are one tag."""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.models import PaperTag, Tag, TagKind
from tests.factories import make_lab_tag, make_paper, make_tag, make_user


def _add(client, paper, name, **extra):
    return client.post(reverse("annotations:tag-add", args=[paper.pk]), {"name": name}, **extra)


def test_member_adds_a_new_lab_tag(client, user):
    paper = make_paper()
    client.force_login(user)
    response = _add(client, paper, "  Reinforcement   Learning ", follow=True)
    paper_tag = PaperTag.objects.get(paper=paper)
    assert paper_tag.tag.kind == TagKind.LAB
    assert paper_tag.tag.name == "Reinforcement Learning"
    assert paper_tag.added_by == user
    assert "Tagged “Reinforcement Learning”." in response.content.decode()


def test_spellings_that_normalise_equal_share_one_tag(client, user, other_user):
    first, second, third = make_paper(), make_paper(), make_paper()
    client.force_login(user)
    _add(client, first, "RL")
    _add(client, second, "rl ")
    client.force_login(other_user)
    _add(client, third, "Rl")
    assert Tag.objects.filter(kind=TagKind.LAB).count() == 1
    assert PaperTag.objects.filter(tag__key="rl").count() == 3


def test_tagging_twice_is_a_message_not_an_error(client, user):
    paper = make_paper()
    client.force_login(user)
    _add(client, paper, "RL")
    response = _add(client, paper, "rl", follow=True)
    assert response.status_code == 200
    assert "already tagged" in response.content.decode()
    assert PaperTag.objects.filter(paper=paper).count() == 1


def test_lab_tag_with_a_venue_name_does_not_touch_the_venue_tag(client, user):
    venue = make_tag("ICLR 2024", TagKind.VENUE)
    paper = make_paper()
    client.force_login(user)
    _add(client, paper, "iclr 2024")
    assert PaperTag.objects.get(paper=paper).tag.kind == TagKind.LAB
    assert Tag.objects.get(pk=venue.pk).kind == TagKind.VENUE


def test_blank_or_overlong_tag_is_a_clear_message(client, user):
    paper = make_paper()
    client.force_login(user)
    for bad in ["   ", "x" * 51]:
        response = _add(client, paper, bad, follow=True)
        assert "Tag not added" in response.content.decode()
    assert not PaperTag.objects.exists()


@pytest.mark.parametrize(
    "name",
    [
        "\u200b\u200b",  # zero-width spaces
        "\u0301\u0301",  # combining accents with nothing to sit on
        "\u3164",  # Hangul filler: a "letter" that draws nothing
        "\u202egat",  # right-to-left override: shows as "tag"
        "rl\u2066x\u2069",  # isolate controls
    ],
)
def test_invisible_or_reordered_tag_names_are_refused(client, user, name):
    paper = make_paper()
    client.force_login(user)
    response = _add(client, paper, name, follow=True)
    assert "Tag not added" in response.content.decode()
    assert not PaperTag.objects.exists()
    assert not Tag.objects.filter(kind=TagKind.LAB).exists()


def test_a_name_that_normalisation_lengthens_past_the_limit_is_refused(client, user):
    # NFKC turns U+FDFA into 18 characters: 50 of them would overflow the stored name.
    paper = make_paper()
    client.force_login(user)
    response = _add(client, paper, "\ufdfa" * 50, follow=True)
    assert "Tag not added" in response.content.decode()
    assert not PaperTag.objects.exists()


def test_non_latin_and_emoji_tags_are_visible_and_accepted(client, user):
    paper = make_paper()
    client.force_login(user)
    for name in ["강화학습", "обучение", "🔥 hot", "نماذج"]:
        _add(client, paper, name)
    assert PaperTag.objects.filter(paper=paper).count() == 4


def test_tag_on_unknown_paper_is_404(client, user):
    client.force_login(user)
    assert _add(client, type("P", (), {"pk": 987654})(), "x").status_code == 404
    assert not Tag.objects.exists()


def test_member_removes_own_tag_but_not_others(client, user, other_user):
    paper = make_paper()
    mine = make_lab_tag(paper, "mine", added_by=user)
    theirs = make_lab_tag(paper, "theirs", added_by=other_user)
    client.force_login(user)
    assert client.post(reverse("annotations:tag-remove", args=[mine.pk])).status_code == 302
    assert client.post(reverse("annotations:tag-remove", args=[theirs.pk])).status_code == 404
    assert list(PaperTag.objects.values_list("pk", flat=True)) == [theirs.pk]


def test_venue_and_track_tags_cannot_be_removed_through_lab_tagging(client, db):
    paper = make_paper(tags=[("ICLR 2024", TagKind.VENUE)])
    venue_tag = PaperTag.objects.get(paper=paper)
    client.force_login(make_user("mod", is_staff=True))
    assert client.post(reverse("annotations:tag-remove", args=[venue_tag.pk])).status_code == 404
    assert PaperTag.objects.filter(pk=venue_tag.pk).exists()


def test_staff_removes_any_lab_tag(client, other_user):
    paper_tag = make_lab_tag(make_paper(), "theirs", added_by=other_user)
    client.force_login(make_user("mod", is_staff=True))
    client.post(reverse("annotations:tag-remove", args=[paper_tag.pk]))
    assert not PaperTag.objects.exists()


def test_htmx_tag_add_returns_the_tags_fragment(client, user):
    paper = make_paper()
    client.force_login(user)
    response = _add(client, paper, "<b>x</b>", HTTP_HX_REQUEST="true")
    content = response.content.decode()
    assert 'id="paper-tags"' in content and "<html" not in content
    assert "&lt;b&gt;x&lt;/b&gt;" in content and "<b>x</b>" not in content


def test_a_name_that_would_share_an_existing_tags_address_is_refused(client, user):
    paper = make_paper()
    client.force_login(user)
    _add(client, paper, "C++")
    response = _add(client, paper, "C", follow=True)
    assert "too close to the existing lab tag “C++”" in response.content.decode()
    assert list(Tag.objects.filter(kind=TagKind.LAB).values_list("name", flat=True)) == ["C++"]
    assert PaperTag.objects.filter(paper=paper).count() == 1


def test_a_refused_name_stays_in_the_box_to_correct(client, user):
    paper = make_paper()
    client.force_login(user)
    _add(client, paper, "a/b")
    response = _add(client, paper, "a,b&", HTTP_HX_REQUEST="true")
    content = response.content.decode()
    assert "too close to the existing lab tag" in content
    assert 'name="name" maxlength="50" value="a,b&amp;"' in content
    # Once tagged, the box is empty for the next tag.
    content = _add(client, paper, "graphs", HTTP_HX_REQUEST="true").content.decode()
    assert 'name="name" maxlength="50" value=""' in content


def test_without_javascript_a_refused_name_comes_back_once_on_the_paper_page(client, user):
    paper, other = make_paper(), make_paper()
    client.force_login(user)
    _add(client, paper, "a/b")
    response = _add(client, paper, "a,b&", follow=True)
    content = response.content.decode()
    assert response.redirect_chain[-1][0].startswith(paper.get_absolute_url())
    assert "too close to the existing lab tag" in content
    assert 'name="name" maxlength="50" value="a,b&amp;"' in content
    # Shown once: a reload, or another paper's page, has an empty box.
    reloaded = client.get(paper.get_absolute_url()).content.decode()
    assert 'name="name" maxlength="50" value=""' in reloaded
    _add(client, paper, "a,b&")
    elsewhere = client.get(other.get_absolute_url()).content.decode()
    assert 'name="name" maxlength="50" value=""' in elsewhere
    assert 'value="a,b&amp;"' not in client.get(paper.get_absolute_url()).content.decode()


def test_a_refused_name_is_not_shown_to_another_member(client, user, other_user):
    paper = make_paper()
    client.force_login(user)
    _add(client, paper, "a/b")
    _add(client, paper, "a,b&")
    client.force_login(other_user)
    assert 'value="a,b&amp;"' not in client.get(paper.get_absolute_url()).content.decode()
