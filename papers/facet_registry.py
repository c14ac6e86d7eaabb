"""The list page's facets, each declared once: everything that reads a facet reads it here.

The URL parser (papers.filters), the search engine's query and counts (papers.search), the
facets and chips shown (papers.facets), a tag page's link to the list (papers.views) and saved
searches and digests (alerts.queries) walk FACETS; none of them names a facet's parameter,
index field or tag kind on its own. Adding a facet is one entry here (plus an index field in
papers.search.schema and a BrowseQuery attribute when the index filters by it) and its example
in tests/test_facet_registry.py, which checks that the new facet is parsed from the URL,
counted, shown as a chip and honoured by a saved search.

A leaf module: it imports the tag kinds and the index's field names, nothing with models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from papers.choices import TagKind
from papers.search import schema


class Resolves(StrEnum):
    """How a facet's URL values name what they select."""

    TAG = "tag"  # tag slugs of the facet's kind (merged tags' old slugs too)
    AUTHOR = "author"  # author ids
    CHOICE = "choice"  # one of the facet's fixed `choices`


@dataclass(frozen=True)
class FacetSpec:
    """One facet of the list page."""

    param: str  # the URL parameter, repeated for several values
    title: str  # the facet's heading, and what its chips say before the value ("Venue: ICLR")
    resolves: Resolves
    # The search engine's name for it: the Facets attribute holding its counts (the lab tags
    # are "lab" there, after their tag kind and index field, and "tag" in URLs).
    engine_name: str
    tag_kind: str | None = None  # Resolves.TAG: the kind of tag it selects
    # The index field it filters and counts by (papers.search.schema), and the BrowseQuery
    # attribute holding the selected index values; None for "mine", which the engine filters
    # by the member's own paper ids.
    index_field: str | None = None
    query_attribute: str | None = None
    # Resolves.CHOICE: value as in the URL -> label; `index_values`: each value's value in
    # `index_field`, when the facet is in the index.
    choices: Mapping[str, str] = field(default_factory=dict)
    index_values: Mapping[str, int] = field(default_factory=dict)
    # Not empty: the facet has a "Not given" value (papers with none), which this explains.
    not_given_hint: str = ""
    # Left out of the page while nothing is counted or selected (data not every source has).
    optional: bool = False
    # Left out while no paper has a value, nothing being selected: for a facet with "Not
    # given", no value but that; for a choice facet, none has its first choice ("Has PDF").
    decided: bool = False
    cut: int | None = None  # only this many values are listed (the most frequent, selected)
    value_order: Mapping[str, int] = field(default_factory=dict)  # fixed order by URL value
    find_param: str = ""  # the URL parameter of the facet's "find" box, if it has one
    logged_in_only: bool = False  # ignored and not shown for a visitor
    # Choices shown only while they count a paper or are selected: "My papers" means nothing to
    # a member no author record is linked to (quiet until needed).
    quiet_choices: frozenset[str] = frozenset()

    @property
    def has_not_given(self) -> bool:
        return bool(self.not_given_hint)


# The URL value of "Not given" in the facets that have it. No tag slug starts with "_"
# (slugify strips it), so it cannot name a real tag.
NOT_GIVEN_SLUG = "_none"
NOT_GIVEN_LABEL = "Not given"

# In the order the page shows them: what a paper is (venue, track, decision, area), who wrote
# it, what it is about, then the site's and the member's own.
FACETS: tuple[FacetSpec, ...] = (
    FacetSpec(
        param="venue",
        title="Venue",
        resolves=Resolves.TAG,
        engine_name="venue",
        tag_kind=TagKind.VENUE,
        index_field=schema.VENUE_IDS,
        query_attribute="venue_ids",
        not_given_hint="“Not given”: papers whose sources name no venue.",
    ),
    FacetSpec(
        param="track",
        title="Presentation track",
        resolves=Resolves.TAG,
        engine_name="track",
        tag_kind=TagKind.TRACK,
        index_field=schema.TRACK_IDS,
        query_attribute="track_ids",
        not_given_hint="“Not given”: papers whose sources name no track (most list only "
        "accepted papers' venue, not whether each is a poster or a talk).",
        # Poster, Spotlight, Oral read best in this order, not alphabetically.
        value_order={"poster": 0, "spotlight": 1, "oral": 2},
    ),
    FacetSpec(
        param="decision",
        title="Decision",
        resolves=Resolves.TAG,
        engine_name="decision",
        tag_kind=TagKind.DECISION,
        index_field=schema.DECISION_IDS,
        query_attribute="decision_ids",
        not_given_hint="“Not given”: papers imported without their OpenReview decision (only "
        "notes saved with their replies carry it).",
        decided=True,  # a catalogue without reviews: "Not given" alone says nothing
    ),
    FacetSpec(
        param="area",
        title="Primary area",
        resolves=Resolves.TAG,
        engine_name="area",
        tag_kind=TagKind.AREA,
        index_field=schema.AREA_IDS,
        query_attribute="area_ids",
        optional=True,
    ),
    FacetSpec(
        param="author",
        title="Authors",
        resolves=Resolves.AUTHOR,
        engine_name="author",
        index_field=schema.AUTHOR_IDS,
        query_attribute="author_ids",
        cut=15,
        find_param="author_q",
    ),
    FacetSpec(
        param="keyword",
        title="Keywords",
        resolves=Resolves.TAG,
        engine_name="keyword",
        tag_kind=TagKind.KEYWORD,
        index_field=schema.KEYWORD_IDS,
        query_attribute="keyword_ids",
        optional=True,
        cut=20,
        find_param="keyword_q",
    ),
    FacetSpec(
        param="tag",
        title="Lab tags",
        resolves=Resolves.TAG,
        engine_name="lab",
        tag_kind=TagKind.LAB,
        index_field=schema.LAB_IDS,
        query_attribute="lab_ids",
        cut=30,
    ),
    FacetSpec(
        param="pdf",
        title="PDF",
        resolves=Resolves.CHOICE,
        engine_name="pdf",
        # Papers whose PDF the site keeps (pdfs.PaperPdf), or not.
        index_field=schema.HAS_PDF,
        query_attribute="pdf_values",
        choices={"yes": "Has PDF", "no": "No PDF"},
        index_values={"yes": 1, "no": 0},
        decided=True,  # no PDF kept of any paper listed: one value for every paper says nothing
    ),
    FacetSpec(
        param="mine",
        title="Mine",
        resolves=Resolves.CHOICE,
        engine_name="mine",
        choices={"lists": "In my reading lists", "notes": "Has my note", "authored": "My papers"},
        logged_in_only=True,
        quiet_choices=frozenset({"authored"}),
    ),
)

BY_PARAM: dict[str, FacetSpec] = {spec.param: spec for spec in FACETS}
BY_ENGINE_NAME: dict[str, FacetSpec] = {spec.engine_name: spec for spec in FACETS}
# The facets whose values are tags, and those the index filters and counts by.
TAG_FACETS: tuple[FacetSpec, ...] = tuple(spec for spec in FACETS if spec.tag_kind)
INDEXED_FACETS: tuple[FacetSpec, ...] = tuple(spec for spec in FACETS if spec.index_field)
# The facets whose URL values are resolved to database rows (tags, authors).
RESOLVED_FACETS: tuple[FacetSpec, ...] = tuple(
    spec for spec in FACETS if spec.resolves in (Resolves.TAG, Resolves.AUTHOR)
)


def facet_of_kind(kind: str) -> FacetSpec | None:
    """The facet selecting tags of this kind, if one does."""
    return next((spec for spec in TAG_FACETS if spec.tag_kind == kind), None)
