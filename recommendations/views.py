"""/recommended/ (precomputed rows) and a reading list's "more like these"."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotations.selectors import visible_lists
from papers.search.store import IndexUnavailable
from recommendations import selectors
from recommendations.models import MIN_POSITIVES

logger = logging.getLogger(__name__)


@login_required
def recommended(request: HttpRequest) -> HttpResponse:
    rows = selectors.recommendations_page(request.user)
    return render(
        request,
        "recommendations/recommended.html",
        {
            "rows": rows,
            "computed_at": rows[0].computed_at if rows else None,
            "min_positives": MIN_POSITIVES,
        },
    )


@login_required
def list_similar(request: HttpRequest, pk: int) -> HttpResponse:
    # As the list's own page: the owner's list or a shared one; another's private list is a 404.
    reading_list = get_object_or_404(visible_lists(request.user).select_related("owner"), pk=pk)
    try:
        similar = selectors.more_like_list(reading_list)
        index_unavailable = False
    except IndexUnavailable:
        logger.warning("Search index unavailable: no papers like list %s", pk)
        similar, index_unavailable = [], True
    return render(
        request,
        "recommendations/list_similar.html",
        {
            "reading_list": reading_list,
            "similar": similar,
            "index_unavailable": index_unavailable,
        },
    )
