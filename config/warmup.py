"""What a web worker loads before its first request, so that no visitor's request waits for it.

A new worker's first list page took 370-500 ms against 15 ms for the next (20,000 papers: the
gunicorn log of `make bench`, where each worker's first timed request was its slowest, and
in-process): importing the URLconf, which imports every app's views (about 250 ms); the map
reverse() builds from it (50 ms); compiling the page's templates; and, when search by meaning
is on, loading its model (460 ms). Each worker loads them once it has started
(config/gunicorn.conf.py), and again after gunicorn recycles it (max_requests).

Nothing here reads the database or the search index: a worker must start while either is down
or being rebuilt, and the index's first catch-up (a rebuild, at worst) belongs to a request,
which says so (papers.search.store). The index's own first answers (per-searcher caches such as
the catalogue's author counts, about 100 ms at 20,000 papers) are left to the first request.
"""

from __future__ import annotations

import logging

from django.template.loader import get_template
from django.urls import get_resolver, reverse

logger = logging.getLogger(__name__)

# The pages most requests are: the list (its results partial is an include of it), a paper.
TEMPLATES = ("papers/paper_list.html", "papers/paper_detail.html")


def warm_up() -> None:
    """Load the URLconf and its reverse map, compile TEMPLATES, and load the model for search
    by meaning when it is on. A failure is logged, not raised: the request that needs the
    part again will load it, or say what is wrong."""
    try:
        get_resolver().url_patterns  # noqa: B018 (imports every app's views)
        reverse("papers:list")  # builds the reverse map of every pattern
        for name in TEMPLATES:
            get_template(name)
        # Here, not at the top: the semantic app imports models, which Django loads first.
        import semantic

        semantic.available()  # loads the model when search by meaning is on
    except Exception:
        logger.exception("Warming up the worker failed; its first requests will load the rest")
