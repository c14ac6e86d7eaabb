"""Numbers no database can hold, sent to every admin: never a server error.

For every registered admin, as a superuser: each date part of each date field as a
changelist filter (past the year 9999, past Python's int() limit), the date hierarchy's
combinations, each list filter's parameters, action selections and the merge's choice, the
add and change forms' fields, and object ids in the URLs. Both databases.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.db import models
from django.test import RequestFactory
from django.urls import reverse

from annotations.models import Comment
from papers.admin.numbers import DATE_PART_RANGES
from tests.factories import make_comment, make_note, make_paper, make_reading_list, make_user

BIG = "9" * 5_000
PAST_BIGINT = str(2**64)
PAST_YEAR_9999 = "99999999999"
HOSTILE = [BIG, PAST_BIGINT]

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = make_user("curator", is_staff=True, is_superuser=True)
    client.force_login(user)
    first = make_paper("First", authors=["Ada Lovelace"], tags=[("ICLR 2024", "venue")])
    second = make_paper("Second", authors=["Alan Turing"], tags=[("NeurIPS 2024", "venue")])
    make_note(user, first)
    make_comment(user, first)
    make_reading_list(user, "List", papers=[first, second])
    return user


def _admins() -> Iterator[tuple[type[models.Model], admin.ModelAdmin]]:
    yield from admin.site._registry.items()


def _url(model: type[models.Model], view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def _date_fields(model: type[models.Model]) -> list[str]:
    return [f.name for f in model._meta.concrete_fields if isinstance(f, models.DateField)]


def _assert_no_server_error(response, what: str) -> None:
    assert response.status_code < 500, what


def test_every_date_part_past_its_range_on_every_changelist_is_refused(client, staff):
    for model, _ in _admins():
        changelist = _url(model, "changelist")
        for field in _date_fields(model):
            for part in DATE_PART_RANGES:
                for number in [PAST_YEAR_9999, BIG]:
                    query = {f"{field}__{part}": number}
                    response = client.get(changelist, query)
                    assert response.status_code == 302, (changelist, query)
                    assert response.url.endswith("?e=1")


def test_date_parts_in_lists_and_comparisons_are_refused_too(client, staff):
    changelist = _url(Comment, "changelist")
    for query in [
        {"created_at__year__in": f"2024,{PAST_YEAR_9999}"},
        {"created_at__year__range": f"2024,{BIG}"},
        {"created_at__year__gte": PAST_YEAR_9999},
        {"created_at__month__lt": PAST_BIGINT},
    ]:
        response = client.get(changelist, query)
        assert response.status_code == 302, query
        assert response.url.endswith("?e=1")


def test_the_date_hierarchy_past_the_last_year_or_month_is_refused(client, staff):
    for model, model_admin in _admins():
        field = model_admin.date_hierarchy
        if not field:
            continue
        for query in [
            {f"{field}__year": PAST_YEAR_9999},
            {f"{field}__year": "9999", f"{field}__month": "12"},
            {f"{field}__year": "9999"},
            {f"{field}__year": "2024", f"{field}__month": PAST_YEAR_9999},
            {f"{field}__year": "2024", f"{field}__month": "1", f"{field}__day": BIG},
        ]:
            response = client.get(_url(model, "changelist"), query)
            assert response.status_code == 302, (model, query)


def test_the_date_hierarchy_within_range_still_filters(client, staff):
    response = client.get(
        _url(Comment, "changelist"),
        {"created_at__year": "2024", "created_at__month": "12", "created_at__day": "31"},
    )
    assert response.status_code == 200


def test_a_refused_date_filter_says_why(client, staff):
    response = client.get(_url(Comment, "changelist"), {"created_at__year": PAST_YEAR_9999})
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert message == "A date filter's year must be from 2 to 9998: the filter was ignored."


def _filter_parameters(client, model) -> Iterator[str]:
    response = client.get(_url(model, "changelist"))
    assert response.status_code == 200, model
    for spec in response.context["cl"].filter_specs:
        yield from spec.expected_parameters()


def test_hostile_numbers_in_every_list_filter_are_never_a_server_error(client, staff):
    for model, _ in _admins():
        changelist = _url(model, "changelist")
        for parameter in _filter_parameters(client, model):
            for number in [*HOSTILE, PAST_YEAR_9999]:
                response = client.get(changelist, {parameter: number})
                _assert_no_server_error(response, f"{changelist}?{parameter}")
        for number in HOSTILE:  # any local field, as the admin allows
            response = client.get(changelist, {"pk__in": number, "id__gt": number})
            _assert_no_server_error(response, f"{changelist}?pk__in")


def test_hostile_numbers_in_every_action_are_never_a_server_error(client, staff):
    request = _staff_request(staff)
    for model, model_admin in _admins():
        changelist = _url(model, "changelist")
        existing = [str(pk) for pk in model._default_manager.values_list("pk", flat=True)[:2]]
        for action in model_admin.get_actions(request):
            for number in HOSTILE:
                for data in [
                    {"action": action, "_selected_action": [number]},
                    {"action": action, "_selected_action": [*existing, number]},
                    # A merge's confirmation, keeping a paper it was not given.
                    {"action": action, "_selected_action": existing, "confirm": "yes"}
                    | {"target": number, "post": "yes"},
                ]:
                    response = client.post(changelist, data)
                    _assert_no_server_error(response, f"{changelist} {action}")


def _staff_request(staff):
    request = RequestFactory().get("/")
    request.user = staff
    return request


def _form_fields(model_admin, staff) -> list[str]:
    return list(model_admin.get_form(_staff_request(staff)).base_fields)


def test_hostile_numbers_in_every_add_and_change_form_are_never_a_server_error(client, staff):
    for model, model_admin in _admins():
        fields = _form_fields(model_admin, staff)
        obj = model._default_manager.first()
        urls = [_url(model, "add")] + ([_url(model, "change", obj.pk)] if obj else [])
        for url in urls:
            for number in HOSTILE:
                _assert_no_server_error(
                    client.post(url, dict.fromkeys(fields, number)), f"{url}: every field"
                )
                for field in fields:
                    _assert_no_server_error(client.post(url, {field: number}), f"{url}: {field}")


def test_hostile_object_ids_in_admin_urls_are_never_a_server_error(client, staff):
    for model, _ in _admins():
        for view in ["change", "delete", "history"]:
            for number in HOSTILE:
                url = _url(model, view, number)
                _assert_no_server_error(client.get(url), url)
                _assert_no_server_error(client.post(url, {"post": "yes"}), url)
