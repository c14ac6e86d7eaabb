"""What the tests of PDF text in search share: storing a file as a fetch does (its text read by
the task it sets off), and the list page's search with each result's snippet."""

from __future__ import annotations

from django.urls import reverse

from tests.pdf_storing import store_test_pdf


def store(paper, content: bytes, django_capture_on_commit_callbacks) -> None:
    """Store the file as a fetch does, and run what its commit sets off (the text task)."""
    with django_capture_on_commit_callbacks(execute=True):
        store_test_pdf(paper, content)


def search(client, query: str, **params):
    response = client.get(reverse("papers:list"), {"q": query, **params})
    assert response.status_code == 200
    return response


def shown(response) -> dict[str, str]:
    """Each result's title and snippet, in the page's order."""
    return {paper.title: str(paper.headline) for paper in response.context["papers"]}
