"""The catalogue's admin, for curators, one module per model admin:

- paper.py: papers (a changelist that scales, the curation queue, inlines, merging papers);
- author.py, tag.py: authors and tags (renaming, merging, merged spellings);
- import_history.py, conflict.py, review.py, feed.py: what imports did, the conflicts they
  left to settle, the reviews they brought, the feeds a lab follows;

and what they share: guards.py (the guards every admin stands behind, from numbers.py,
privacy.py and deletion.py), list_filters.py, pickers.py, merging.py, common.py.
Django's admin autodiscovery imports this package, which registers them all.
"""

from papers.admin import (  # noqa: F401 - registers each admin
    author,
    conflict,
    feed,
    import_history,
    paper,
    review,
    tag,
)
