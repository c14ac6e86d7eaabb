"""Search by meaning: paper embeddings as derived data and a vector index per app server.

The integrator's API: `available()`, `semantic.search.nearest_ids(text, k)` and
`semantic.search.neighbours(paper_id, k)` (docs/semantic.md).
"""


def available() -> bool:
    """Whether semantic search is on: the setting allows it, the extra imports, the model
    loads and the vector index library imports. Never raises."""
    from semantic.embedder import get_embedder

    if get_embedder() is None:
        return False
    try:
        import usearch.index  # noqa: F401
    except ImportError:
        return False
    return True
