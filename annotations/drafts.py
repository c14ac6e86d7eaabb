"""What a member typed into a paper-page form that was refused, kept across the redirect.

With htmx the refused section comes back with the text still in its box. A plain form post
(no JavaScript) is answered with a redirect to the paper page (views.common.finish), so the
text rides in the session to that paper's next rendering, and is shown there once.
"""

from __future__ import annotations

from django.http import HttpRequest

from papers.models import Paper

SESSION_KEY = "annotation_draft"
# The boxes whose refused text comes back: a lab tag's name, a new reading list's name.
FIELDS = ("tag_name", "new_list_name")
# A refused value may be anything a client posted: the session keeps no more of it than this.
MAX_KEPT = 1000


def keep(request: HttpRequest, paper: Paper, **values: str) -> None:
    """Keep `values` (FIELDS) for the next rendering of `paper`'s page; an htmx request has
    its section re-rendered with them instead, and keeps nothing."""
    if getattr(request, "htmx", False):
        return
    kept = {name: value[:MAX_KEPT] for name, value in values.items() if value}
    if kept:
        request.session[SESSION_KEY] = {"paper": paper.pk, **kept}


def take(request: HttpRequest, paper: Paper) -> dict[str, str]:
    """The values kept for `paper`, forgotten once taken. A draft kept for another paper is
    dropped too: it belongs to a page the member has left."""
    session = getattr(request, "session", None)
    if session is None or SESSION_KEY not in session:
        return {}
    draft = session.pop(SESSION_KEY)
    if not isinstance(draft, dict) or draft.get("paper") != paper.pk:
        return {}
    return {name: draft[name] for name in FIELDS if isinstance(draft.get(name), str)}
