"""Fetching papers from the services they live on, into the one import pipeline.

- client.py: the one HTTP client every service is fetched with (politeness, retries, FetchError);
- openreview_api.py: a venue's notes from OpenReview's API (v2, else v1), as import records;
- arxiv_api.py: an arXiv query's entries, newest first, page by page, as import records;
- crossref.py: one work by its DOI from Crossref's REST API, as a record;
- identifiers.py: which outside paper a member's link or id names;
- single.py: one paper by that link, from the catalogue or fetched and added for a member.

Fetchers only turn responses into records (papers.importing.records); the loader writes them
(papers.importing.pipeline.import_records). Nothing here imports views.
"""
