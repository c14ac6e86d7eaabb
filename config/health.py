"""/healthz: tells a load balancer or monitor whether this app server can reach its database."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


@login_not_required
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        # The reason goes to the log only: the response must not describe our infrastructure.
        logger.warning("Health check failed, database unavailable: %s", exc)
        status, body = 503, "unavailable"
    else:
        status, body = 200, "ok"
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
