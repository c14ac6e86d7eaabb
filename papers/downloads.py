"""Headers for a file the site hands out (a stored PDF, an export, a notes download): whatever
its bytes are, a browser neither reads it as another type nor runs it as a page of this site.

A member's upload may be a PDF and an HTML page at once (a polyglot). `nosniff` keeps browsers
to the declared type, and the `sandbox` directive makes the file, if a browser ever renders it
as a document, a page of no origin: no scripts, no forms, no cookies of ours. PDF.js in the
reader reads the file with fetch(), which a policy on the file's own response does not touch.
"""

from __future__ import annotations

from typing import TypeVar

from csp.utils import build_policy
from django.http.response import HttpResponseBase
from django.utils.http import content_disposition_header

Response = TypeVar("Response", bound=HttpResponseBase)


def file_policy() -> str:
    """The site's policy (django-csp's CONTENT_SECURITY_POLICY) with `sandbox` added. Set on the
    response itself, so CSPMiddleware, which leaves a header already set alone, keeps it."""
    return build_policy(update={"sandbox": []})


def served_as_file(response: Response, *, filename: str, attachment: bool) -> Response:
    """`response` with the headers of a served file: inline (the reader's fetch, or a browser's
    own viewer) or as an attachment (saved, never shown), under `filename`."""
    response["Content-Security-Policy"] = file_policy()
    # Also set site-wide (SECURE_CONTENT_TYPE_NOSNIFF); a file must never be sniffed into HTML,
    # whatever the settings become.
    response["X-Content-Type-Options"] = "nosniff"
    # Never None: a filename is given. Names outside ASCII are sent as RFC 6266's filename*.
    response["Content-Disposition"] = str(content_disposition_header(attachment, filename))
    return response
