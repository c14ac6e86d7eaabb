"""A highlight as a W3C Web Annotation (https://www.w3.org/TR/annotation-model/), JSON-LD.

The target is the paper's PDF; its selector is the page as a FragmentSelector (the PDF
fragment syntax, `page=N`, with the conformsTo IRI the model lists for PDF), refined by the
TextQuoteSelector and TextPositionSelector counted in that page's text (docs/highlights.md).
The note, when there is one, is a TextualBody in Markdown.
"""

from __future__ import annotations

from typing import Any

from highlights.models import Highlight
from papers.routes import int_url

CONTEXT = "http://www.w3.org/ns/anno.jsonld"
CONTENT_TYPE = 'application/ld+json; profile="http://www.w3.org/ns/anno.jsonld"'
PDF_FRAGMENT_SPEC = "http://tools.ietf.org/rfc/rfc3778"


def annotation(highlight: Highlight, absolute) -> dict[str, Any]:
    """`absolute` turns a path into a full URL (request.build_absolute_uri)."""
    page_selector = {
        "type": "FragmentSelector",
        "conformsTo": PDF_FRAGMENT_SPEC,
        "value": f"page={highlight.page}",
        "refinedBy": [
            {
                "type": "TextQuoteSelector",
                "exact": highlight.exact,
                "prefix": highlight.prefix,
                "suffix": highlight.suffix,
            },
            {"type": "TextPositionSelector", "start": highlight.start, "end": highlight.end},
        ],
    }
    document: dict[str, Any] = {
        "@context": CONTEXT,
        "id": absolute(highlight.get_jsonld_url()),
        "type": "Annotation",
        "motivation": "commenting" if highlight.note else "highlighting",
        "created": highlight.created_at.isoformat(),
        "modified": highlight.updated_at.isoformat(),
        "creator": {"type": "Person", "nickname": highlight.author.get_username()},
        "audience": "lab" if highlight.is_shared else "private",
        "target": {
            "source": absolute(int_url("pdfs:file", highlight.paper_id)),
            "format": "application/pdf",
            "selector": page_selector,
        },
    }
    if highlight.note:
        document["body"] = {
            "type": "TextualBody",
            "value": highlight.note,
            "format": "text/markdown",
            "purpose": "commenting",
        }
    if highlight.orphaned:
        # Not in the model: where the selectors no longer find the quote in the present file.
        document["orphaned"] = True
    return document
