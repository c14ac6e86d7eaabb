"""Log lines that say when, how bad, from where and for which request.

Every line carries the time, the level, the logger's name and the id of the request it was
written for ("-" outside a request: commands, the task worker). The id comes from the proxy's
`X-Request-ID` when it sends a plausible one (so the proxy's access log and ours name the same
request), else a new one; the response carries it back, so a member reporting an error page can
quote it and an operator can find that request's lines.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
# What a proxy's id may look like (nginx's $request_id is 32 hex digits, others use UUIDs):
# anything else is replaced, so a client cannot write arbitrary text into our logs.
_PLAUSIBLE_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")

_current: ContextVar[str] = ContextVar("request_id", default="-")


def current_request_id() -> str:
    return _current.get()


class RequestIdFilter(logging.Filter):
    """Gives every record the current request's id, for FORMAT."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _current.get()
        return True


class RequestIdMiddleware:
    """Outermost: the id is set before anything else can log, and sent back on every response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(HEADER, "")
        request_id = given if _PLAUSIBLE_ID.fullmatch(given) else uuid.uuid4().hex
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = request_id
        return response
