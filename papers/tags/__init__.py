"""What a tag is, in one place: its name, identity key, URL slug, aliases and merges.

- identity.py: pure rules, no database. The display name of a tag (NFKC, single spaces), its
  identity key within a kind (case-folded), its search key, its URL slug (a stable hash for
  names with nothing to slugify, so emoji-only names do not collide), the column limits a name
  and its key must fit, and how a new tag's slug is numbered when its base is taken.
- service.py: the database side, for every caller (the importer, members adding lab tags,
  the admin's merges and forms, the list page's URLs, settled import conflicts): finding a
  tag by name or slug through the spellings merged into others (TagAlias), creating tags
  with free slugs, and merging tags.
"""
