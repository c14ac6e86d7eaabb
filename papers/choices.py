"""Choices and small value types the catalogue's modules share, with no import of their own
beyond Django: models, querysets and listings all read them, and none imports the others
through this module."""

from __future__ import annotations

from django.db import models


class TagKind(models.TextChoices):
    VENUE = "venue", "Venue"
    TRACK = "track", "Presentation track"
    LAB = "lab", "Lab tag"
    KEYWORD = "keyword", "Keyword"  # the authors' keywords, as sources give them
    AREA = "area", "Primary area"  # OpenReview's primary_area, arXiv's primary category
    # OpenReview's decision ("Accept (poster)", "Reject"), set from the paper's reviews by
    # Review.objects.refresh_summaries, never by the loader or a member.
    DECISION = "decision", "Decision"


class PublicationType(models.TextChoices):
    """What kind of publication a paper is, as its sources say (papers.importing.
    publication_types reads each source's word for it): what a citation's entry type follows.
    Blank: no source said."""

    JOURNAL_ARTICLE = "journal-article", "Journal article"
    CONFERENCE_PAPER = "conference-paper", "Conference or workshop paper"
    PREPRINT = "preprint", "Preprint"
    BOOK_CHAPTER = "book-chapter", "Book chapter"
    BOOK = "book", "Book"
    THESIS = "thesis", "Thesis"
    REPORT = "report", "Report"
    OTHER = "other", "Other"
