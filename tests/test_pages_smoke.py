from django.urls import reverse

from papers.models import TagKind
from tests.factories import make_paper


def test_list_shows_paper_with_authors_and_tags(client, db):
    make_paper("Attention Is Enough", authors=["Ada Lovelace"], tags=[("Poster", TagKind.TRACK)])
    response = client.get(reverse("papers:list"))
    assert response.status_code == 200
    assert b"Attention Is Enough" in response.content
    assert b"Ada Lovelace" in response.content
    assert b"Poster" in response.content


def test_untitled_paper_shows_placeholder(client, db):
    paper = make_paper("", needs_curation=True)
    response = client.get(paper.get_absolute_url())
    assert b"awaiting curation" in response.content


def no_inline_script(html: str) -> bool:
    import re

    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, flags=re.S)
    return all(not body.strip() for body in scripts) and " onclick=" not in html


def test_paper_page_shows_everything_about_the_paper(client, db):
    paper = make_paper(
        "Diffusion for robots",
        abstract="We \\emph{propose} $x<y$ with 50\\% less \\citep{a,b}.\n\nSecond paragraph.",
        authors=["Ada Lovelace", "Alan Turing"],
        tags=[("ICLR 2024", TagKind.VENUE), ("Oral", TagKind.TRACK), ("robots", TagKind.LAB)],
        forum_url="https://openreview.net/forum?id=abc",
        pdf_url="https://openreview.net/pdf?id=abc",
    )
    response = client.get(paper.get_absolute_url())
    html = response.content.decode()
    assert response.status_code == 200
    for author in paper.authors.all():
        assert f'href="{author.get_absolute_url()}"' in html
    for tag in paper.tags.all():
        assert f'href="{tag.get_absolute_url()}"' in html
    assert "<em>propose</em>" in html and "50% less" in html and "[a; b]" in html
    assert "$x&lt;y$" in html
    assert 'href="https://openreview.net/forum?id=abc"' in html
    assert 'href="https://openreview.net/pdf?id=abc"' in html
    assert "vendor/katex/katex.min.js" in html and "js/math.js" in html
    assert no_inline_script(html)


def test_paper_page_drops_links_that_are_not_http(client, db):
    paper = make_paper("Risky", forum_url="javascript:alert(1)", pdf_url="ftp://x/y.pdf")
    html = client.get(paper.get_absolute_url()).content.decode()
    assert "javascript:" not in html and "ftp://" not in html


def test_paper_page_lists_similar_papers(client, db):
    paper = make_paper(
        "Graph neural networks for molecules", abstract="Graph networks on molecules."
    )
    make_paper("Graph neural networks for proteins", abstract="Graph networks on proteins.")
    make_paper("Unrelated topic", abstract="Nothing in common here.")
    html = client.get(paper.get_absolute_url()).content.decode()
    assert "Similar papers" in html
    assert "Graph neural networks for proteins" in html
    assert "Unrelated topic" not in html


def test_author_page_lists_papers_and_co_authors_with_counts(client, db):
    make_paper("One", authors=["Ada Lovelace", "Alan Turing"])
    make_paper("Two", authors=["Ada Lovelace", "Alan Turing", "Grace Hopper"])
    make_paper("Three", authors=["Grace Hopper"])
    from papers.models import Author

    ada = Author.objects.get(name="Ada Lovelace")
    response = client.get(ada.get_absolute_url())
    assert response.status_code == 200
    assert [p.title for p in response.context["page"]] == ["Two", "One"]
    assert [(name, n) for _pk, name, n in response.context["co_authors"]] == [
        ("Alan Turing", 2),
        ("Grace Hopper", 1),
    ]


def test_tag_page_lists_its_papers_paginated(client, db):
    for n in range(27):
        make_paper(f"Oral {n}", tags=[("Oral", TagKind.TRACK)])
    make_paper("A poster", tags=[("Poster", TagKind.TRACK)])
    from papers.models import Tag

    oral = Tag.objects.get(kind=TagKind.TRACK, name="Oral")
    response = client.get(oral.get_absolute_url())
    assert response.context["page"].paginator.count == 27
    assert b"A poster" not in response.content
    assert b'href="?page=2"' in response.content


def test_list_page_is_a_plain_get_form_with_facets(client, db):
    make_paper("Listed", authors=["Ada Lovelace"], tags=[("Poster", TagKind.TRACK)])
    html = client.get(reverse("papers:list")).content.decode()
    assert '<form method="get"' in html
    assert 'name="track" value="poster"' in html
    assert 'name="author_q"' in html
    assert "js/facets.js" in html
    assert no_inline_script(html)


def test_pages_render_for_a_logged_in_member(client, user, db):
    paper = make_paper("Members only view", authors=["Ada Lovelace"])
    client.force_login(user)
    assert client.get(reverse("papers:list")).status_code == 200
    assert client.get(paper.get_absolute_url()).status_code == 200


def test_link_filters_give_the_same_papers_in_both_query_shapes(db):
    from papers.models import Author, Paper, Tag

    for n in range(5):
        make_paper(
            f"P{n}",
            authors=["Ada Lovelace"] if n % 2 else ["Alan Turing"],
            tags=[("Oral", TagKind.TRACK)] if n < 3 else [],
        )
    ada = Author.objects.get(name="Ada Lovelace")
    oral = Tag.objects.get(name="Oral")
    for many in (False, True):
        assert sorted(
            Paper.objects.by_author(ada.pk, many=many).values_list("title", flat=True)
        ) == ["P1", "P3"]
        assert sorted(
            Paper.objects.with_tag(oral.pk, many=many).values_list("title", flat=True)
        ) == ["P0", "P1", "P2"]


def test_list_shows_an_escaped_excerpt_of_each_abstract(client, db):
    make_paper("", abstract="Opening words <script>alert(1)</script> of an untitled paper.")
    html = client.get(reverse("papers:list")).content.decode()
    assert "Opening words &lt;script&gt;alert(1)&lt;/script&gt; of an untitled paper." in html
    assert "<script>alert" not in html
