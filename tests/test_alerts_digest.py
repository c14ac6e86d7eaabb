"""The digest e-mail (issue 13, part 2): `manage.py send_digests` mails each member the papers
new in their alerted saved searches and recommendations not mailed before; never anything
private of another member; nothing when nothing is new; an unsubscribe link that needs no login
and asks before it acts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from alerts.models import DigestState, SavedSearch
from annotations.models import Visibility
from recommendations.models import Recommendation
from tests.factories import make_note, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


def send(*args: str) -> None:
    call_command("send_digests", *args, stdout=open("/dev/null", "w"))


def save_search(owner, name: str, query: str, **fields) -> SavedSearch:
    search = SavedSearch.objects.create(owner=owner, name=name, query=query, **fields)
    # Saved a while ago: every paper the test makes is new to it.
    earlier = timezone.now() - timedelta(days=1)
    SavedSearch.objects.filter(pk=search.pk).update(created_at=earlier, last_seen_at=earlier)
    search.refresh_from_db()
    return search


def recommend(user, paper, list_name: str) -> Recommendation:
    return Recommendation.objects.create(
        user=user,
        paper=paper,
        score=1.0,
        reasons={"terms": ["diffusion"], "lists": [{"name": list_name, "count": 2}]},
        computed_at=timezone.now(),
    )


def bodies(message) -> str:
    html = message.alternatives[0][0]
    return message.body + "\n" + html


@pytest.fixture
def ana(db):
    return make_user("ana")


@pytest.fixture
def ben(db):
    return make_user("ben")


def test_the_digest_lists_new_matches_with_text_and_html_parts(ana):
    save_search(ana, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    make_paper("Graph networks")
    send()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ana@example.org"]
    assert "1 new paper" in message.subject
    assert "Latent diffusion for audio" in message.body and "Graph networks" not in message.body
    assert message.alternatives[0][1] == "text/html"
    assert "Latent diffusion for audio" in message.alternatives[0][0]
    token = DigestState.objects.get(user=ana).token
    assert reverse("alerts:unsubscribe", args=[token]) in message.body
    assert message.extra_headers["List-Unsubscribe"].endswith(f"/{token}/>")


def test_the_digest_holds_no_private_item_of_another_member(ana, ben):
    paper = make_paper("Score-based diffusion models")
    save_search(ana, "Diffusion", "q=diffusion")
    save_search(ben, "Ben's hidden search", "q=diffusion")
    make_reading_list(ben, "Ben's private list", papers=[paper], visibility=Visibility.PRIVATE)
    make_note(ben, paper, "Ben's private note: the proof is wrong")
    recommend(ben, make_paper("Another diffusion paper"), "Ben's private list")
    recommend(ana, paper, "Ana's reading group")
    # Searches that reach the member's own papers resolve to Ana's, never Ben's.
    save_search(ana, "Mine", "mine=lists&mine=notes")

    send()
    to_ana = next(m for m in mail.outbox if m.to == ["ana@example.org"])
    body = bodies(to_ana)
    assert "Score-based diffusion models" in body  # a catalogue entry, public to the lab
    assert "Ana&#x27;s reading group" in body or "Ana's reading group" in body
    for private in (
        "Ben's private list",
        "Ben&#x27;s private list",
        "private note",
        "hidden search",
    ):
        assert private not in body
    assert "Mine" not in body  # Ana has no list and no note: nothing new there


def test_send_digests_is_idempotent_and_sends_nothing_when_nothing_is_new(ana):
    save_search(ana, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    recommend(ana, make_paper("Graph networks"), "Reading group")
    send()
    assert len(mail.outbox) == 1 and "Graph networks" in mail.outbox[0].body

    send()
    assert len(mail.outbox) == 1  # the same papers and recommendations are not mailed again

    make_paper("Diffusion in vision")
    send()
    assert len(mail.outbox) == 2
    assert "Diffusion in vision" in mail.outbox[1].body
    assert (
        "Latent diffusion" not in mail.outbox[1].body
        and "Graph networks" not in mail.outbox[1].body
    )


def test_nothing_is_sent_for_searches_without_news_or_with_the_alert_off(ana, ben):
    save_search(ana, "Nothing", "q=astronomy")
    save_search(ben, "Off", "q=diffusion", alert=False)
    make_paper("Latent diffusion for audio")
    send()
    assert mail.outbox == []


def test_dry_run_sends_and_records_nothing(ana):
    save_search(ana, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    send("--dry-run")
    assert mail.outbox == []
    send("--user", "ana")
    assert len(mail.outbox) == 1


def test_an_unknown_user_is_an_error(db):
    with pytest.raises(CommandError, match="No member 'nobody'"):
        send("--user", "nobody")


def test_unsubscribe_asks_on_get_acts_on_post_and_needs_no_login(client, ana):
    save_search(ana, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    state = DigestState.objects.create(user=ana)
    url = reverse("alerts:unsubscribe", args=[state.token])

    page = client.get(url)
    assert page.status_code == 200 and "Stop the digest e-mail?" in page.content.decode()
    state.refresh_from_db()
    assert state.unsubscribed_at is None  # a mail scanner following the link changes nothing

    done = client.post(url)
    assert done.status_code == 200 and "Unsubscribed" in done.content.decode()
    state.refresh_from_db()
    assert state.unsubscribed_at is not None
    send()
    assert mail.outbox == []


@pytest.mark.parametrize("token", ["not-a-token", "x" * 500, "%00"])
def test_a_bad_unsubscribe_token_is_404(client, db, token):
    assert client.get(f"/searches/unsubscribe/{token}/").status_code == 404
    assert client.post(f"/searches/unsubscribe/{token}/").status_code == 404


def test_a_member_can_turn_the_digest_back_on(client, ana):
    state = DigestState.objects.create(user=ana, unsubscribed_at=timezone.now())
    client.force_login(ana)
    assert "You unsubscribed" in client.get(reverse("alerts:searches")).content.decode()
    client.post(reverse("alerts:resubscribe"))
    state.refresh_from_db()
    assert state.unsubscribed_at is None


def _resubscribed(client, member) -> DigestState:
    client.force_login(member)
    client.post(reverse("alerts:resubscribe"))
    return DigestState.objects.get(user=member)


def test_resubscribing_gives_a_new_unsubscribe_link(client, ana):
    old = DigestState.objects.create(user=ana, unsubscribed_at=timezone.now())
    assert _resubscribed(client, ana).token != old.token


def test_an_old_unsubscribe_link_stops_working_once_resubscribed(client, ana):
    old = DigestState.objects.create(user=ana, unsubscribed_at=timezone.now())
    _resubscribed(client, ana)
    old_url = reverse("alerts:unsubscribe", args=[old.token])
    assert client.get(old_url).status_code == 404
    assert client.post(old_url).status_code == 404
    assert DigestState.objects.get(user=ana).unsubscribed_at is None


def test_the_new_unsubscribe_link_unsubscribes(client, ana):
    DigestState.objects.create(user=ana, unsubscribed_at=timezone.now())
    state = _resubscribed(client, ana)
    client.post(reverse("alerts:unsubscribe", args=[state.token]))
    state.refresh_from_db()
    assert state.unsubscribed_at is not None


def test_the_next_digest_after_resubscribing_carries_the_new_link(client, ana):
    save_search(ana, "Diffusion", "q=diffusion")
    make_paper("Latent diffusion for audio")
    old = DigestState.objects.create(user=ana, unsubscribed_at=timezone.now())
    new = _resubscribed(client, ana)
    send()
    [message] = mail.outbox
    assert reverse("alerts:unsubscribe", args=[new.token]) in message.body
    assert old.token not in message.body + message.extra_headers["List-Unsubscribe"]


def test_resubscribing_while_subscribed_keeps_the_link(client, ana):
    state = DigestState.objects.create(user=ana)
    assert _resubscribed(client, ana).token == state.token


def test_the_unsubscribe_link_works_when_the_site_requires_a_login(client, ana, settings):
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE,
        "django.contrib.auth.middleware.LoginRequiredMiddleware",
    ]
    state = DigestState.objects.create(user=ana)
    assert client.get(reverse("alerts:searches")).status_code == 302  # the rest needs a login
    url = reverse("alerts:unsubscribe", args=[state.token])
    assert client.get(url).status_code == 200
    assert client.post(url).status_code == 200
