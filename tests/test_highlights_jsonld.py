"""A highlight as a W3C Web Annotation (JSON-LD), to whoever may see it."""

from __future__ import annotations

from django.urls import reverse

from tests.factories import make_paper
from tests.highlight_helpers import SENTENCE, make_highlight


def test_highlight_is_a_web_annotation_with_page_quote_and_position(client, user):
    paper = make_paper()
    highlight = make_highlight(
        user, paper, page=7, start=40, prefix="before ", suffix=" after", note="*why* it works"
    )
    client.force_login(user)
    response = client.get(reverse("highlights:jsonld", args=[highlight.pk]))
    assert response["Content-Type"].startswith("application/ld+json")
    document = response.json()
    assert document["@context"] == "http://www.w3.org/ns/anno.jsonld"
    assert document["type"] == "Annotation"
    assert document["id"] == f"http://testserver/highlights/{highlight.pk}.jsonld"
    assert document["motivation"] == "commenting"
    assert document["body"] == {
        "type": "TextualBody",
        "value": "*why* it works",
        "format": "text/markdown",
        "purpose": "commenting",
    }
    target = document["target"]
    assert target["source"] == f"http://testserver/papers/{paper.pk}/pdf/"
    selector = target["selector"]
    assert (selector["type"], selector["value"]) == ("FragmentSelector", "page=7")
    quote, position = selector["refinedBy"]
    assert quote == {
        "type": "TextQuoteSelector",
        "exact": SENTENCE,
        "prefix": "before ",
        "suffix": " after",
    }
    assert position == {"type": "TextPositionSelector", "start": 40, "end": 40 + len(SENTENCE)}


def test_highlight_without_note_is_highlighting_without_body(client, user):
    highlight = make_highlight(user, make_paper())
    client.force_login(user)
    document = client.get(reverse("highlights:jsonld", args=[highlight.pk])).json()
    assert document["motivation"] == "highlighting" and "body" not in document


def test_lab_highlight_is_readable_by_members_private_one_is_404(client, user, other_user):
    paper = make_paper()
    lab = make_highlight(other_user, paper, visibility="lab")
    private = make_highlight(other_user, paper, visibility="private", note="bob only")
    client.force_login(user)
    assert client.get(reverse("highlights:jsonld", args=[lab.pk])).status_code == 200
    response = client.get(reverse("highlights:jsonld", args=[private.pk]))
    assert response.status_code == 404 and b"bob only" not in response.content


def test_visitor_gets_404(client, user):
    lab = make_highlight(user, make_paper(), visibility="lab")
    assert client.get(reverse("highlights:jsonld", args=[lab.pk])).status_code == 404
