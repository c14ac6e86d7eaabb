"""Recent activity across the lab: only things the logged-in member may already see."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotations import selectors

ACTIVITY_LIMIT = 50


@login_required
def recent_activity(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "annotations/activity.html",
        {"activity": selectors.recent_activity(request.user, limit=ACTIVITY_LIMIT)},
    )
