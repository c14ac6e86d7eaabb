"""The JSON API's one NinjaAPI (docs/api.md): its routers, its 429 and its OpenAPI 3.1
document at /api/v1/openapi.json (docs off: the document is the reference)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import re_path, register_converter
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI

from api import catalogue, mine
from api.auth import RateLimited
from papers.numbers import IdConverter

# The routers' paths name ids as `{id:...}`, read when config/urls.py asks for `api.urls`.
register_converter(IdConverter, "id")

api = NinjaAPI(
    title="Paper browser API",
    version="1",
    description="The lab's catalogue, lists, notes and highlights, with the site's access rules.",
    urls_namespace="api-1",
    docs_url=None,
    openapi_url="/openapi.json",
)
api.add_router("/", catalogue.router)
api.add_router("/", mine.router)


@api.exception_handler(RateLimited)
def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = api.create_response(request, {"detail": str(exc)}, status=429)
    response["Retry-After"] = str(exc.retry_after)
    return response


@csrf_exempt
def not_found(request: HttpRequest) -> HttpResponse:
    """Any other address under the API's (an id its URL does not take: `-1`, `abc`, past a
    bigint; a misspelt path), whatever the method: the API's own 404, in JSON as the document
    declares it, not the site's HTML page. Nothing is read or written."""
    return api.create_response(request, {"detail": "Not Found"}, status=404)


def api_urls() -> tuple[list, str, str]:
    """The API's URL patterns, each open to Django's LoginRequiredMiddleware (REQUIRE_LOGIN):
    a token's request carries no session, and the API says who may read (api.auth.visitor).
    Last, every other address under the API's answers its JSON 404 (not_found)."""
    patterns, app_name, namespace = api.urls
    patterns = [*patterns, re_path(r"^.*$", not_found, name="not-found")]
    for pattern in patterns:
        # What django.contrib.auth.decorators.login_not_required sets on a view.
        setattr(pattern.callback, "login_required", False)  # noqa: B010
    return patterns, app_name, namespace
