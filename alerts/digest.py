"""The digest e-mail: per member, the papers new in each alerted saved search since the last
run, and recommendations not mailed before. Only the member's own saved searches and
recommendations are read; papers are catalogue entries (titles and links), so nothing private
of anyone else can reach the message."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db.models import Q
from django.template.loader import render_to_string

from alerts.models import DigestState, SavedSearch
from alerts.queries import new_ids
from operations import claims
from papers.models import DISPLAY_TITLE_FIELDS, Paper

# Papers listed per saved search in one e-mail; the rest are counted and linked.
PAPERS_PER_SEARCH = 20
RECOMMENDATIONS = 5
# How long a run holds a member's digest: far longer than building and sending one e-mail
# takes (EMAIL_TIMEOUT bounds the sending), short enough that the members of a run that died
# are mailed by the next day's run.
CLAIM_FOR = timedelta(minutes=30)


def _has_recommendations() -> bool:
    # The recommendations app is optional: without it the digest has saved searches only.
    return apps.is_installed("recommendations")


def _recommended_for(user, limit: int) -> list:
    if not _has_recommendations():
        return []
    from recommendations.selectors import recommended_for

    return recommended_for(user, limit)


@dataclass
class SearchNews:
    search: SavedSearch
    papers: list[Paper]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.papers)


@dataclass
class Digest:
    user: User
    state: DigestState
    searches: list[SearchNews] = field(default_factory=list)
    recommendations: list = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.searches and not self.recommendations

    def message(self) -> EmailMultiAlternatives:
        context = {
            "digest": self,
            "user": self.user,
            "site_url": settings.SITE_URL,
            "site_name": settings.SITE_NAME,
            "unsubscribe_url": self.state.unsubscribe_url,
        }
        text = render_to_string("alerts/digest_email.txt", context)
        html = render_to_string("alerts/digest_email.html", context)
        count = sum(news.total for news in self.searches)
        subject = f"{settings.SITE_NAME}: {count} new paper{'s' if count != 1 else ''}"
        if not count:
            subject = f"{settings.SITE_NAME}: papers recommended for you"
        message = EmailMultiAlternatives(
            subject, text, settings.DEFAULT_FROM_EMAIL, [self.user.email]
        )
        message.attach_alternative(html, "text/html")
        message.extra_headers["List-Unsubscribe"] = f"<{self.state.unsubscribe_url}>"
        return message


def recipients(username: str | None = None):
    """Active members with an e-mail address and an alerted saved search or recommendations,
    who have not unsubscribed."""
    users = get_user_model().objects.filter(is_active=True).exclude(email="")
    users = users.exclude(digest_state__unsubscribed_at__isnull=False)
    wanted = Q(saved_searches__alert=True)
    if _has_recommendations():
        wanted |= Q(recommendations__isnull=False)
    users = users.filter(wanted).distinct().order_by("pk")
    if username is not None:
        users = users.filter(username=username)
    return users


def claim(user, now: datetime) -> claims.Claim[DigestState] | None:
    """`user`'s digest state, held by this run until mark_done (or the claim's release,
    which gives the member back for the next run to try again); None when another run holds
    it. The state is read after the claim, so a run that just finished this member is seen
    (its last run time), and what it mailed is not mailed again."""
    state, _ = DigestState.objects.get_or_create(user=user)
    return claims.claim(DigestState, state.pk, CLAIM_FOR, now=now)


def build_digest(user, state: DigestState) -> Digest:
    """What `user`'s digest holds now (`state`: theirs, claimed); writes nothing."""
    searches = list(user.saved_searches.filter(alert=True))
    # A search's papers count from its creation, or from the last run if that came later.
    since = {
        s.pk: max(s.created_at, state.last_run_at) if state.last_run_at else s.created_at
        for s in searches
    }
    found = new_ids(user, searches, since, PAPERS_PER_SEARCH)
    wanted_ids = {pk for ids, _total in found.values() for pk in ids}
    papers = Paper.objects.only(*DISPLAY_TITLE_FIELDS).in_bulk(wanted_ids)
    digest = Digest(user=user, state=state)
    for search in searches:
        ids, total = found[search.pk]
        if total:
            listed = [papers[pk] for pk in ids if pk in papers]
            digest.searches.append(SearchNews(search, listed, total))
    already = set(state.recommended_ids)
    digest.recommendations = [
        r
        for r in _recommended_for(user, RECOMMENDATIONS + len(already))
        if r.paper_id not in already
    ][:RECOMMENDATIONS]
    return digest


def mark_done(
    digest: Digest, claim: claims.Claim[DigestState], now: datetime, *, sent: bool
) -> bool:
    """Record the run (and what was mailed) and give the member back; False, and nothing
    recorded, when this run outlived its claim and another run took the member over."""
    state = digest.state
    done: dict = {"last_run_at": now}
    if sent:
        done["last_sent_at"] = now
        done["recommended_ids"] = sorted(
            set(state.recommended_ids) | {r.paper_id for r in digest.recommendations}
        )
    return claim.release(**done)
