"""Guests only reach the routes in GUEST_ROUTES: the catalogue's pages, the comment threads,
their own account. Everything else (lists, notes, highlights, the lab page, activity,
exports, recommendations, saved searches) answers 403, whatever the view would decide."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import SimpleLazyObject

from accounts.models import Role
from accounts.roles import ROLE_SESSION_KEY, role_of

GUEST_ROUTES = frozenset(
    {
        "healthz",
        "papers:list",
        "papers:detail",
        "papers:author",
        "papers:tag",
        "papers:suggest",
        "annotations:comment-add",
        "annotations:comment-edit",
        "annotations:comment-delete",
        "login",
        "logout",
        "password_change",
        "password_change_done",
        "accounts:accept",
    }
)


class SiteRoleMiddleware:
    """After AuthenticationMiddleware: the user carries the role their session keeps (read
    when first asked, so a page that never looks at the user costs no query), and a guest is
    refused the routes that are not theirs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user

        def with_role():
            role = request.session.get(ROLE_SESSION_KEY)
            if role and user.is_authenticated:
                user._site_role = Role(role)  # type: ignore[attr-defined]
            return user

        request.user = SimpleLazyObject(with_role)  # type: ignore[assignment]
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.session.get(ROLE_SESSION_KEY, Role.MEMBER) != Role.GUEST:
            # Only a session that says guest needs the user: the rest cost nothing here.
            return None
        if role_of(request.user) != Role.GUEST:
            return None
        match = request.resolver_match
        if match is not None and match.view_name in GUEST_ROUTES:
            return None
        return render(request, "accounts/guest_refused.html", status=403)
