"""Sizes of what Zotero sends that the site stores (shared by the models and the parser)."""

MAX_KEY = 16  # Zotero's object keys are 8 characters; room to spare.
