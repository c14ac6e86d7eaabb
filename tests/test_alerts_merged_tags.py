"""A saved search on a keyword that a curator then merges into another (issue 29): the search
follows the kept keyword, as its link on the list page does. It counts the papers that have
the kept keyword and the digest mails them, and nothing else."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from alerts.models import SavedSearch
from alerts.queries import new_counts
from papers.models import Paper, Tag, TagKind
from tests.factories import make_paper, make_user

pytestmark = pytest.mark.django_db
KEYWORD = TagKind.KEYWORD


def keyword(name: str) -> Tag:
    return Tag.objects.get(kind=KEYWORD, name=name)


def test_a_saved_search_on_a_merged_keyword_follows_the_kept_one(admin_client):
    old = [
        make_paper("Old singular paper", tags=[("large language model", KEYWORD)]),
        make_paper("Old plural paper", tags=[("large language models", KEYWORD)]),
    ]
    yesterday = timezone.now() - timedelta(days=1)
    Paper.objects.filter(pk__in=[paper.pk for paper in old]).update(created_at=yesterday)
    member = make_user("ana")
    singular = keyword("large language model")
    search = SavedSearch.objects.create(
        owner=member, name="LLMs", query=f"keyword={singular.slug}", alert=True
    )
    earlier = timezone.now() - timedelta(minutes=5)
    SavedSearch.objects.filter(pk=search.pk).update(created_at=earlier, last_seen_at=earlier)

    kept = keyword("large language models")
    admin_client.post(
        reverse("admin:papers_tag_changelist"),
        {
            "action": "merge_tags",
            "_selected_action": [singular.pk, kept.pk],
            "confirm": "yes",
            "target": kept.pk,
        },
    )
    assert not Tag.objects.filter(pk=singular.pk).exists()
    make_paper("New plural paper", tags=[("large language models", KEYWORD)])
    make_paper("Unrelated new paper", tags=[("graph networks", KEYWORD)])

    search.refresh_from_db()
    # New since the search was saved: the new plural paper only.
    assert new_counts(member, [search]) == {search.pk: 1}
    call_command("send_digests", stdout=open("/dev/null", "w"))
    (message,) = mail.outbox
    assert "New plural paper" in message.body
    assert "Unrelated new paper" not in message.body
    assert "1 new paper" in message.subject
