"""Numbers no database can hold, sent to every URL of the site: never a server error.

A 5,000-digit number is past what Python's int() reads (4,300 digits); a 20-digit one is past
the database's 64-bit integers. Every URL of the URLconf but the admin's (tests/
test_hostile_numbers_admin.py) gets both, posted in every integer-like field of the site's
forms and views and given in every integer of its path and query string, as a member and as
staff. The URLs are enumerated from the URLconf, so a new one fails
test_every_url_of_the_site_is_swept until it is given here the objects its path names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django import forms
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter

from alerts.models import DigestState, SavedSearch
from annotations import forms as annotation_forms
from annotations import triage, triage_forms
from annotations.models import (
    Capture,
    Comment,
    ExportJob,
    Notification,
    NotificationKind,
    Suggestion,
)
from api.models import TokenScope
from api.tokens import create_token
from groups.models import CalendarLink
from papers.models import LinkFetch
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)
from tests.group_helpers import make_group, make_session
from tests.highlight_helpers import make_highlight

BIG = "9" * 5_000
PAST_BIGINT = str(2**64)
HOSTILE = [BIG, PAST_BIGINT]

ROOT = Path(__file__).resolve().parent.parent
APPS = ["papers", "annotations", "alerts", "recommendations", "pdfs", "highlights", "semantic"]
APPS += ["operations", "groups", "accounts", "config"]

# Every integer-like field a form or a view of the site reads from a request ("p{pk}-" is the
# per-result prefix of the triage controls; `target` is the admin merge's, swept there too).
INTEGER_FIELDS = [
    "parent",
    "quote_start",
    "paper",
    "page_papers",
    "reading_list",
    "priority",
    "page",
    "per_page",
    "at",
    "author",
    "p{pk}-reading_list",
    "start",
    "end",
    "target",
    "group",
    "position",  # a list item's place after a drag
    "editors",  # a list's named editors
]


@dataclass
class World:
    user: object
    kwargs: dict[str, dict[str, object]]
    data: dict[str, str]


def _world(user) -> World:
    other = make_user("other-member")
    paper = make_paper("A paper", abstract="Quoted words in an abstract.", authors=["Ada Lovelace"])
    author = paper.authorships.get().author
    venue = make_paper("Venue paper", tags=[("ICLR 2024", "venue")]).paper_tags.get().tag
    reading_list = make_reading_list(user, "Mine", papers=[paper])
    item = reading_list.items.get()
    comment = make_comment(other, paper, f"Hello @{user.username}")
    notification = Notification.objects.create(
        recipient=user, kind=NotificationKind.MENTION, comment=comment
    )
    search = SavedSearch.objects.create(owner=user, name="Saved", query="q=paper")
    suggestion = Suggestion.objects.create(sender=other, recipient=user, paper=paper)
    token = DigestState.objects.create(user=user).token
    export = ExportJob.objects.create(owner=user, path="/export/papers.bib", extension="bib")
    link_fetch = LinkFetch.objects.create(
        requested_by=user, kind="doi", value="10.1145/1", link="10.1145/1", status="failed"
    )
    pk = paper.pk
    tag = {"kind": venue.kind, "slug": venue.slug}
    kwargs: dict[str, dict[str, object]] = {
        "papers:detail": {"pk": pk},
        "pdfs:file": {"pk": pk},
        "pdfs:upload": {"pk": pk},
        "pdfs:fetch": {"pk": pk},
        "pdfs:reader": {"pk": pk},
        "papers:author": {"pk": author.pk},
        "papers:tag": tag,
        "annotations:note-add": {"paper_pk": pk},
        "annotations:note-edit": {"pk": make_note(user, paper).pk},
        "annotations:list-item-add": {"pk": reading_list.pk},
        "annotations:list-item-remove": {"pk": reading_list.pk, "item_pk": item.pk},
        "annotations:list-item-move": {"pk": reading_list.pk, "item_pk": item.pk},
        "annotations:list-item-status": {"pk": reading_list.pk, "item_pk": item.pk},
        "annotations:list-item-note": {"pk": reading_list.pk, "item_pk": item.pk},
        "annotations:paper-suggest": {"paper_pk": pk},
        "annotations:suggestion-accept": {"pk": suggestion.pk},
        "annotations:suggestion-dismiss": {"pk": suggestion.pk},
        "annotations:paper-list-add": {"paper_pk": pk},
        "annotations:comment-add": {"paper_pk": pk},
        "annotations:comment-edit": {"pk": make_comment(user, paper).pk},
        "annotations:paper-cite": {"paper_pk": pk},
        "annotations:notification-open": {"pk": notification.pk},
        "annotations:tag-add": {"paper_pk": pk},
        "annotations:tag-remove": {"pk": make_lab_tag(paper, "rl", added_by=user).pk},
        "annotations:papers-export": {"extension": "bib"},
        "annotations:author-export": {"pk": author.pk, "extension": "bib"},
        "annotations:tag-export": {**tag, "extension": "bib"},
        "annotations:triage-bulk": {},
        "annotations:triage-link": {},
        "papers:link-fetch": {"pk": link_fetch.pk},
        "annotations:export-download": {"pk": export.pk},
        "alerts:unsubscribe": {"token": token},
        "password_reset_confirm": {"uidb64": "MQ", "token": "set-password"},
    }
    for name in ["list-detail", "list-edit", "list-delete", "list-export-bibtex"]:
        kwargs[f"annotations:{name}"] = {"pk": reading_list.pk}
    for name in ["list-export-ris", "list-export-csl", "list-export-csv"]:
        kwargs[f"annotations:{name}"] = {"pk": reading_list.pk}
    kwargs["recommendations:list-similar"] = {"pk": reading_list.pk}
    highlight = {"pk": make_highlight(user, paper, exact="Quoted words").pk}
    for name in ["edit", "anchor", "jsonld", "delete"]:
        kwargs[f"highlights:{name}"] = highlight
    kwargs["highlights:list"] = {"paper_pk": pk}
    kwargs["highlights:paper-export"] = {"pk": pk}
    kwargs["highlights:list-export"] = {"pk": reading_list.pk}
    # Deletes last in each sweep, so the objects stay for the other URLs.
    kwargs["annotations:note-delete"] = kwargs["annotations:note-edit"]
    kwargs["annotations:comment-delete"] = kwargs["annotations:comment-edit"]
    kwargs["annotations:export-delete"] = kwargs["annotations:export-download"]
    for name in [f"triage-{action}" for action in triage.ACTIONS]:
        kwargs[f"annotations:{name}"] = {"paper_pk": pk}
    for name in ["open", "rename", "toggle-alert", "delete"]:
        kwargs[f"alerts:{name}"] = {"pk": search.pk}
    kwargs["highlights:visibility"] = highlight
    capture = Capture.objects.create(member=user, reading_list=reading_list, paper=paper, item=item)
    for name in ["capture-result", "capture-undo"]:
        kwargs[f"annotations:{name}"] = {"pk": capture.pk}
    group = make_group([user])
    for name in ["detail", "edit", "join", "session-create", "leave"]:  # leaving last
        kwargs[f"groups:{name}"] = {"pk": group.pk}
    session = make_session(group, papers=[paper])
    for name in ["session", "session-edit", "session-notes", "rsvp", "swap"]:
        kwargs[f"groups:{name}"] = {"pk": session.pk}
    kwargs["groups:calendar-feed"] = {
        "key": CalendarLink.objects.create(owner=user, group=group).key
    }
    kwargs["accounts:accept"] = {"token": "no-such-invitation"}
    # The JSON API (api/): its routes with ids.
    kwargs["api-1:paper"] = kwargs["api-1:tag_add"] = kwargs["api-1:highlight_add"] = {
        "paper_id": pk
    }
    kwargs["api-1:author"] = {"author_id": author.pk}
    for name in ["list_detail", "item_add"]:
        kwargs[f"api-1:{name}"] = {"list_id": reading_list.pk}
    kwargs["api-1:item_status"] = {"list_id": reading_list.pk, "item_id": item.pk}
    kwargs["api-1:fetch"] = {"fetch_id": link_fetch.pk}
    kwargs["api:token-revoke"] = {
        "pk": create_token(user=user, name="Hostile", scope=TokenScope.WRITE)[0].pk
    }
    for name in ["openid_connect_login", "openid_connect_callback"]:  # allauth's, not configured
        kwargs[name] = {"provider_id": "oidc"}
    # Valid values of every field the site's forms post, so that a hostile value in one field
    # reaches the code that reads it.
    data = {
        "body": "A comment.",
        "name": "A name",
        "description": "",
        "visibility": "private",
        "new_list_name": "",
        "action": "save",
        "status": "read",
        "direction": "down",
        "position": "0",
        "editors": str(other.pk),
        "note": "A note",
        "recipient": "other-member",
        "reason": "",
        "confirmed": "yes",
        "select_all": "1",
        "paper": str(pk),
        "page_papers": str(pk),
        "reading_list": str(reading_list.pk),
        "priority": "1",
        "parent": str(comment.pk),
        "quote": "",
        "quote_start": "0",
        "exact": "Quoted words",
        "start": "0",
        "end": "12",
        "query": f"q=paper&author={author.pk}",
        "tag": "rl",
        "from": "q=paper",
        "at": "1",
        "page": "1",
        "per_page": "25",
        "author": str(author.pk),
        "q": "paper",
        "layout": "single",
        "path": "/export/papers.bib",
        f"p{pk}-reading_list": str(reading_list.pk),
        f"p{pk}-status": "read",
        f"p{pk}-name": "rl",
    }
    return World(user=user, kwargs=kwargs, data=data)


# A quote is only read from a new comment, never from a reply.
WITH_FIELD = {"quote_start": {"quote": "Quoted words", "parent": ""}}


@pytest.fixture(params=["member", "staff"])
def world(request, db, client) -> World:
    staff = request.param == "staff"
    user = make_user("someone", is_staff=staff, is_superuser=staff)
    client.force_login(user)
    return _world(user)


def _site_patterns(
    patterns=None, prefix: str = "", namespace: str = ""
) -> Iterator[tuple[str, URLPattern]]:
    """(name, pattern) of every URL but the admin's; an unnamed one by its route."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _site_patterns(entry.url_patterns, f"{prefix}{entry.pattern}", inner)
        elif entry.name:
            yield f"{namespace}{entry.name}", entry
        else:
            yield f"{prefix}{entry.pattern}", entry


def _site_urls(world: World) -> Iterator[tuple[str, str, dict[str, object]]]:
    """(name, URL, kwargs) for every URL of the site, each once, deletes last."""
    named = dict(_site_patterns())
    order = sorted(named, key=lambda name: name.endswith("delete"))
    for name in order:
        pattern = named[name]
        kwargs = world.kwargs.get(name, {})
        url = reverse(name, kwargs=kwargs) if pattern.name else f"/{name}"
        yield name, url, kwargs


def _hostile_paths(name: str, kwargs: dict[str, object]) -> Iterator[str]:
    """The URL with each of its integers in turn replaced by each hostile number."""
    converters = dict(_site_patterns())[name].pattern.converters
    for key, converter in converters.items():
        if isinstance(converter, IntConverter):
            for number in HOSTILE:
                yield reverse(name, kwargs={**kwargs, key: number})


def _field_names(world: World) -> list[str]:
    pk = world.kwargs["papers:detail"]["pk"]
    return [field.format(pk=pk) for field in INTEGER_FIELDS]


def _assert_no_server_error(response, what: str) -> None:
    assert response.status_code < 500, what


def test_every_url_of_the_site_is_swept(db):
    user = make_user("sweeper")
    world = _world(user)
    for name, pattern in _site_patterns():
        if pattern.pattern.converters:
            assert set(world.kwargs.get(name, {})) == set(pattern.pattern.converters), name


def test_hostile_numbers_in_any_field_of_any_post_are_never_a_server_error(client, world):
    for name, url, _ in _site_urls(world):
        everything = {field: BIG for field in world.data}
        response = client.post(url, everything)
        _assert_no_server_error(response, f"{name}: every field")
        if response.status_code == 405:  # not a form's address
            continue
        for field in _field_names(world):
            for number in HOSTILE:
                data = {**world.data, **WITH_FIELD.get(field, {}), field: number}
                _assert_no_server_error(client.post(url, data), f"{name}: {field}={number[:20]}")


def test_hostile_numbers_in_any_query_parameter_are_never_a_server_error(client, world):
    for name, url, _ in _site_urls(world):
        for field in _field_names(world):
            for number in HOSTILE:
                query = {**world.data, field: number}
                _assert_no_server_error(client.get(url, query), f"{name}: ?{field}={number[:20]}")


def test_hostile_numbers_in_any_path_are_not_found(client, world):
    for name, _, kwargs in _site_urls(world):
        for url in _hostile_paths(name, kwargs):
            assert client.get(url).status_code in (404, 405), url
            assert client.post(url, world.data).status_code in (404, 405), url


# The sweep's list of fields is checked against what the code reads: a new integer field of a
# form, or a new raw read of one, fails here until INTEGER_FIELDS holds its name.
_FORM_MODULES = [annotation_forms, triage_forms]
_RAW_READ = re.compile(r"""\.(?:data|POST|GET)\.(?:get|getlist)\(\s*["'](\w+)["']""")
_NOT_NUMBERS = {"next", "confirmed", "quote", "quote_prefix", "quote_suffix", "new_list_name"}
_NOT_NUMBERS |= {"layout", "query", "select_all", "cancel", "q", "period", "name", "from", "path"}
# A link to add a paper by (papers.views.add_by_link): any text, parsed as an identifier.
_NOT_NUMBERS |= {"link"}
# How a curator settles an import conflict: a choice name (papers/admin/conflict.py).
_NOT_NUMBERS |= {"resolution"}
# Flags and choices of the highlight forms ("1", "private" or "lab").
_NOT_NUMBERS |= {"orphaned", "visibility"}
# Fields of an OpenReview or Crossref answer (papers/sources: `fetched.data.get(...)`), not of a
# request.
_NOT_NUMBERS |= {"notes", "count", "message"}


def _integer_form_fields() -> set[str]:
    found = set()
    for module in _FORM_MODULES:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, forms.BaseForm):
                for name, field in value.base_fields.items():
                    typed = isinstance(field, forms.TypedChoiceField) and field.coerce is int
                    if typed or isinstance(field, forms.IntegerField | forms.ModelChoiceField):
                        found.add(name)
    return found


def test_the_sweep_covers_every_integer_field_of_the_forms():
    assert _integer_form_fields() <= set(INTEGER_FIELDS)


def test_the_sweep_covers_every_value_the_views_read_from_a_request():
    read: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            read |= set(_RAW_READ.findall(path.read_text()))
    assert read - _NOT_NUMBERS <= set(INTEGER_FIELDS)


def test_a_reply_to_a_hostile_parent_number_is_a_form_error(client, world):
    url = reverse("annotations:comment-add", kwargs=world.kwargs["annotations:comment-add"])
    for number in HOSTILE:
        response = client.post(url, {"body": "A reply.", "parent": number})
        assert response.status_code == 200
        assert "The comment you replied to is not on this paper." in response.content.decode()
    assert not Comment.objects.filter(body="A reply.").exists()


def test_a_triage_of_hostile_paper_numbers_names_them(client, world):
    url = reverse("annotations:triage-bulk")
    for field in ["paper", "page_papers"]:
        for number in HOSTILE:
            data = {"action": "save", "select_all": "1", field: number}
            response = client.post(url, data)
            assert response.status_code < 500
            assert f"No paper has the number {number[:20]}" in _messages_text(client, response)


def _messages_text(client, response) -> str:
    followed = client.get(response.url) if response.status_code == 302 else response
    return followed.content.decode()
