"""/healthz: tells a load balancer or monitor whether this app server can answer pages.

It can when its database answers, its search index is usable (caught up with the database;
built first if it is missing, see papers/search/store.py) and its static files are collected
(without `collectstatic`, every page fails to name its stylesheet with DEBUG off). Until then
the answer is 503, so a load balancer sends no traffic to an app server that is still building
its index or was deployed without its static files.
"""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from papers.search.sync import IndexUnavailable, current_searcher

logger = logging.getLogger(__name__)


def _static_files_collected() -> bool:
    try:
        staticfiles_storage.url("css/site.css")
    except ValueError as exc:
        # The manifest storage raises this for a file `collectstatic` has not hashed.
        logger.warning("Health check failed, static files not collected: %s", exc)
        return False
    return True


@login_not_required
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    status, body = 200, "ok"
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        current_searcher()
    except DatabaseError as exc:
        # The reason goes to the log only: the response must not describe our infrastructure.
        logger.warning("Health check failed, database unavailable: %s", exc)
        status, body = 503, "unavailable"
    except IndexUnavailable as exc:
        logger.warning("Health check failed, search index unavailable: %s", exc)
        status, body = 503, "unavailable"
    if status == 200 and not _static_files_collected():
        status, body = 503, "unavailable"
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
