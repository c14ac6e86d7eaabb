"""The catalogue's search: an embedded Tantivy index derived from the database.

- query.py: the search box's language, read into a tree of plain words (user text never
  reaches the engine as query syntax);
- schema.py, documents.py: what is indexed for each paper, read from the database;
- engine.py: the engine's API over a searcher: a listing's page with ranking and sorts, all
  its ids, its size, what is new since a moment; it names the public functions of its parts:
  values.py (what it takes and gives), analysis.py (the index's words), building.py (queries),
  counting.py (exact disjunctive facet counts), snippets.py, similar.py, suggestions.py,
  spelling.py ("did you mean");
- store.py, sync.py: one index directory per app server, caught up with the database's change
  log before each request; `manage.py rebuild_search_index` makes it again from scratch.

The database stays the only source of truth; losing the index loses nothing.
"""

from papers.search.query import (
    MAX_CLAUSES,
    MAX_PHRASE_WORDS,
    MAX_QUERY_CHARS,
    STOP_WORDS,
    Clause,
    ParsedQuery,
    parse_query,
)

__all__ = [
    "MAX_CLAUSES",
    "MAX_PHRASE_WORDS",
    "MAX_QUERY_CHARS",
    "STOP_WORDS",
    "Clause",
    "ParsedQuery",
    "parse_query",
]
