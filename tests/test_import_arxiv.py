"""The arXiv API reader turns an Atom feed into PaperRecords without the database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from papers.importing import arxiv
from papers.importing.records import ImportFailed, PaperRecord, validate_record

QUERY = Path(__file__).resolve().parent / "data" / "arxiv" / "query.xml"

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
ARXIV_NS = 'xmlns:arxiv="http://arxiv.org/schemas/atom"'


def entry(
    arxiv_id="2402.00001v1",
    published="2024-02-01T10:00:00Z",
    journal_ref="",
    summary="An abstract.",
):
    """A minimal entry of eight lines (seven newlines), so entries after HEAD start at 3, 11..."""
    ref = f"<arxiv:journal_ref {ARXIV_NS}>{journal_ref}</arxiv:journal_ref>" if journal_ref else ""
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{arxiv_id}</id>\n"
        f"    <published>{published}</published>\n"
        "    <title>A title</title>\n"
        f"    <summary>{summary}</summary>\n"
        f"    <author><name>Ann One</name></author>{ref}\n"
        f'    <link href="http://arxiv.org/abs/{arxiv_id}" rel="alternate" type="text/html"/>\n'
        "  </entry>\n"
    )


def read(text: str) -> list[PaperRecord]:
    return list(arxiv.read(text, "q.xml"))


def failure_of(text: str) -> ImportFailed:
    with pytest.raises(ImportFailed) as failure:
        read(text)
    return failure.value


def test_a_realistic_feed_gives_exact_records_with_the_lines_of_their_entries():
    records = list(arxiv.read(QUERY.read_text(encoding="utf-8"), "query.xml"))
    assert records == [
        PaperRecord(
            title="Training Energy Models with $\\alpha$-Divergence: Bounds for 0 < $\\alpha$ < 1",
            forum_id="",
            forum_url="https://arxiv.org/abs/2310.01234v2",
            pdf_url="https://arxiv.org/pdf/2310.01234v2",
            authors=["Ana Lima", "Kenji Watanabe", "Mei Chen"],
            tags=["ICLR 2024"],
            abstract=(
                "We study energy-based models trained by minimising an $\\alpha$-divergence "
                "instead of the Kullback-Leibler divergence. For $0 < \\alpha < 1$ the "
                "objective stays finite where the model has no mass, and we bound its gradient "
                "variance by $O(1/\\sqrt{n})$. Experiments on \\textsc{CIFAR-10} match the bound."
            ),
            source="query.xml",
            line=10,
            keywords=["cs.LG", "stat.ML"],
            primary_area="cs.LG",
            arxiv_id="2310.01234",
            year=2023,
            doi="",
        ),
        PaperRecord(
            title="Spectral Bounds for Schrödinger Operators on Compact Manifolds",
            forum_id="",
            forum_url="https://arxiv.org/abs/hep-th/9901001v1",
            pdf_url="https://arxiv.org/pdf/hep-th/9901001v1",
            authors=["Jürgen Weiß", "Élodie Marchand"],
            tags=[],
            abstract=(
                "We prove lower bounds on the spectrum of the Schrödinger operator "
                "$-\\Delta + V$ on a compact Riemannian manifold, for potentials $V \\in L^p$. "
                "The constants depend only on the dimension and on the volume."
            ),
            source="query.xml",
            line=41,
            keywords=["hep-th", "math-ph", "math.MP"],
            primary_area="hep-th",
            arxiv_id="hep-th/9901001",
            year=1999,
            doi="10.1016/S0550-3213(99)00123-4",
            publication_type="preprint",  # no journal reference naming a venue
        ),
        PaperRecord(
            title="Zoë: Retrieval-Augmented Summaries of Long Scientific Documents",
            forum_id="",
            forum_url="https://arxiv.org/abs/2401.12345v1",
            pdf_url="https://arxiv.org/pdf/2401.12345v1",
            authors=["Priya Raman", "Tomás O'Neill", "Sofia Lindqvist"],
            tags=[],
            abstract=(
                "Long papers exceed the context of most language models. We present Zoë, which "
                "retrieves the passages a summary needs and cites them; on \\texttt{arXiv-Long} "
                "it improves ROUGE-L by 3.1 points over truncation."
            ),
            source="query.xml",
            line=70,
            keywords=["cs.CL", "cs.AI", "cs.IR", "I.2.7"],
            primary_area="cs.CL",
            arxiv_id="2401.12345",
            year=2024,
            doi="",
            publication_type="preprint",  # no journal reference naming a venue
        ),
    ]
    lines = QUERY.read_text(encoding="utf-8").split("\n")
    assert [lines[record.line - 1] for record in records] == ["  <entry>"] * 3
    assert [validate_record(record).forum_id for record in records] == ["", "", ""]


def test_the_current_api_style_with_https_ids_and_prefixes_declared_on_the_feed():
    text = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
        "  <id>https://arxiv.org/api/abc</id>\n"
        "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        "  <entry>\n"
        "    <id>https://arxiv.org/abs/1706.03762v7</id>\n"
        "    <title>Attention Is All You Need</title>\n"
        "    <summary>The dominant sequence transduction models ...</summary>\n"
        "    <published>2017-06-12T17:57:34Z</published>\n"
        "    <arxiv:doi>10.48550/arXiv.1706.03762</arxiv:doi>\n"
        "    <arxiv:journal_ref>NeurIPS, 2017</arxiv:journal_ref>\n"
        '    <link href="https://arxiv.org/abs/1706.03762v7" rel="alternate" type="text/html"/>\n'
        '    <link href="https://arxiv.org/pdf/1706.03762v7" rel="related" '
        'type="application/pdf" title="pdf"/>\n'
        '    <arxiv:primary_category term="cs.CL"/>\n'
        '    <category term="cs.CL"/>\n'
        '    <category term="cs.LG"/>\n'
        "    <author><name>Ashish Vaswani</name></author>\n"
        "  </entry>\n"
        "</feed>\n"
    )
    [record] = read(text)
    assert (record.arxiv_id, record.line, record.year, record.doi, record.tags) == (
        "1706.03762",
        5,
        2017,
        "10.48550/arXiv.1706.03762",
        ["NeurIPS 2017"],
    )
    assert (record.forum_url, record.pdf_url) == (
        "https://arxiv.org/abs/1706.03762v7",
        "https://arxiv.org/pdf/1706.03762v7",
    )
    assert (record.primary_area, record.keywords) == ("cs.CL", ["cs.CL", "cs.LG"])


@pytest.mark.parametrize(
    ("journal_ref", "tags"),
    [
        ("ICLR 2024", ["ICLR 2024"]),
        ("NeurIPS, 2023", ["NeurIPS 2023"]),
        ("  CoRL\n  2022 ", ["CoRL 2022"]),
        ("Eur.Phys.J. C31 (2003) 17-29", []),
        ("Phys. Rev. D 76, 013009 (2007)", []),
        ("Nature 2020", []),
        ("Proceedings of ICML 2023", []),
        ("ICLR 2024 (spotlight)", []),
        ("ICLR 1949", []),
    ],
)
def test_journal_ref_becomes_a_venue_tag_only_when_it_is_an_acronym_and_a_year(journal_ref, tags):
    [record] = read(HEAD + entry(journal_ref=journal_ref) + "</feed>\n")
    assert record.tags == tags


def test_the_api_error_entry_fails_with_its_summary_and_line():
    text = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">\n'
        "  <title>ArXiv Query: search_query=&amp;id_list=1234.12345</title>\n"
        "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        "  <entry>\n"
        "    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>\n"
        "    <title>Error</title>\n"
        "    <summary>incorrect id format for 1234.12345</summary>\n"
        "    <updated>2007-10-12T00:00:00-04:00</updated>\n"
        '    <link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345" '
        'rel="alternate" type="text/html"/>\n'
        "    <author><name>arXiv api core</name></author>\n"
        "  </entry>\n"
        "</feed>\n"
    )
    failure = failure_of(text)
    assert (failure.file, failure.line, failure.message) == (
        "q.xml",
        5,
        "incorrect id format for 1234.12345",
    )


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE feed [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><summary>&lol3;</summary></entry></feed>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>

<!DOCTYPE feed SYSTEM "file:///etc/passwd">
<feed xmlns="http://www.w3.org/2005/Atom"></feed>
"""


@pytest.mark.parametrize(("text", "line"), [(BILLION_LAUGHS, 2), (EXTERNAL_ENTITY, 3)])
def test_any_dtd_is_refused_at_its_doctype_before_an_entity_is_declared(text, line):
    failure = failure_of(text)
    assert (failure.line, failure.message.startswith("DTDs are not allowed")) == (line, True)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            HEAD + entry() + "  <entry>\n    <title>Cut</summary>\n",
            12,
            "malformed XML: mismatched tag (column 17)",
        ),
        (HEAD + entry(), 11, "malformed XML: no element found (column 1)"),
        (
            HEAD + "  <entry>&nbsp;</entry>\n</feed>\n",
            3,
            "malformed XML: undefined entity (column 10)",
        ),
        ("", 1, "malformed XML: no element found (column 1)"),
    ],
)
def test_malformed_xml_fails_with_the_line_of_the_error(text, line, message):
    failure = failure_of(text)
    assert (failure.line, failure.message) == (line, message)


def test_a_feed_without_entries_fails_like_an_empty_json_file():
    failure = failure_of(HEAD + "  <title>ArXiv Query: nothing</title>\n</feed>\n")
    assert (failure.line, str(failure)) == (None, "q.xml: no entries in the feed")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '<rss version="2.0"><channel></channel></rss>',
            'not an Atom feed: the root element is <rss> with no namespace, expected <feed xmlns="'
            'http://www.w3.org/2005/Atom">',
        ),
        (
            '<feed xmlns="http://purl.org/rss/1.0/"></feed>',
            "not an Atom feed: the root element is <feed> in namespace http://purl.org/rss/1.0/, "
            'expected <feed xmlns="http://www.w3.org/2005/Atom">',
        ),
    ],
)
def test_a_document_that_is_no_atom_feed_fails_at_its_root(text, message):
    failure = failure_of(text)
    assert (failure.line, failure.message) == (1, message)


@pytest.mark.parametrize(
    ("arxiv_id", "published", "line", "message"),
    [
        (
            "not-an-id",
            "2024-02-01",
            3,
            "entry id 'http://arxiv.org/abs/not-an-id' is not an arXiv abstract URL such as "
            "http://arxiv.org/abs/2310.01234v2",
        ),
        (
            "2402.00001v1",
            "last Tuesday",
            3,
            "published date 'last Tuesday' is not a date such as 2023-10-02T17:59:58Z",
        ),
    ],
)
def test_an_entry_that_is_no_arxiv_paper_fails_with_its_line(arxiv_id, published, line, message):
    failure = failure_of(HEAD + entry(arxiv_id=arxiv_id, published=published) + "</feed>\n")
    assert (failure.line, failure.message) == (line, message)


def test_a_declared_encoding_does_not_change_text_that_is_already_decoded():
    text = HEAD.replace("UTF-8", "ISO-8859-1") + entry(summary="Schrödinger") + "</feed>\n"
    assert [record.abstract for record in read(text)] == ["Schrödinger"]


def test_a_long_feed_is_read_across_chunks_with_every_line_right():
    count = 2_000  # about 600 KB, nine parser chunks
    text = HEAD + "".join(entry(arxiv_id=f"2402.{n:05d}v1") for n in range(count)) + "</feed>\n"
    records = read(text)
    assert len(text) > 9 * arxiv._CHUNK
    assert [(r.arxiv_id, r.line) for r in records] == [
        (f"2402.{n:05d}", 3 + 8 * n) for n in range(count)
    ]


def test_records_come_out_before_the_rest_of_a_long_feed_is_parsed():
    text = HEAD + entry() * 1_000 + "  <entry>\n    <title>Cut</summary>\n"
    records = arxiv.read(text, "q.xml")
    assert (next(records).line, len(text) > 2 * arxiv._CHUNK) == (3, True)
    with pytest.raises(ImportFailed) as failure:
        list(records)
    assert (failure.value.line, failure.value.message) == (
        8_004,
        "malformed XML: mismatched tag (column 17)",
    )


@pytest.mark.parametrize(
    "text",
    [
        QUERY.read_text(encoding="utf-8"),
        '\ufeff<feed xmlns="http://www.w3.org/2005/Atom">',
        "<?xml version='1.0'?>\n<!-- saved 2024-02-01 -->\n<!-- by curl -->\n"
        "<feed xmlns:o='http://a9.com/-/spec/opensearch/1.1/' xmlns='http://www.w3.org/2005/Atom'>",
        '<atom:feed xmlns:atom="http://www.w3.org/2005/Atom">',
    ],
)
def test_looks_like_an_atom_feed(text):
    assert arxiv.looks_like(text) is True


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title></channel></rss>',
        json.dumps({"title": "A feed", "abstract": "<feed xmlns='http://www.w3.org/2005/Atom'>"}),
        "ICLR 2024 Papers\n\nWe study feeds.\n",
        "<feed>",
        '<feed xmlns="http://purl.org/rss/1.0/">',
        '<atom:feed xmlns="http://www.w3.org/2005/Atom">',
        '<feeds xmlns="http://www.w3.org/2005/Atom">',
        '<!DOCTYPE feed>\n<feed xmlns="http://www.w3.org/2005/Atom">',
        '<!-- never closed <feed xmlns="http://www.w3.org/2005/Atom">',
        "",
    ],
)
def test_does_not_look_like_an_atom_feed(text):
    assert arxiv.looks_like(text) is False


def test_read_page_gives_versions_dates_and_the_query_total():
    text = (
        HEAD.replace("Atom", 'Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/')
        + "  <opensearch:totalResults>1234</opensearch:totalResults>\n"
        + entry(arxiv_id="2402.00001v3").replace(
            "<published>", "<updated>2024-03-05T09:00:00Z</updated><published>"
        )
        + entry(arxiv_id="hep-th/9901001")
        + "</feed>\n"
    )
    page = arxiv.read_page(text, "q.xml")
    assert page.total_results == 1234
    assert [
        (e.record.arxiv_id, e.version, str(e.published), str(e.updated)) for e in page.entries
    ] == [
        ("2402.00001", 3, "2024-02-01", "2024-03-05"),
        ("hep-th/9901001", None, "2024-02-01", "None"),
    ]


def test_read_page_of_a_feed_without_entries_is_no_error():
    page = arxiv.read_page(HEAD + "  <title>ArXiv Query: nothing</title>\n</feed>\n", "q.xml")
    assert (page.entries, page.total_results) == ([], None)


def test_an_updated_date_out_of_range_fails_with_its_line():
    text = HEAD + entry().replace("<published>", "<updated>2024-13-01</updated><published>")
    failure = failure_of(text + "</feed>\n")
    assert (failure.line, failure.message) == (
        3,
        "updated date '2024-13-01' is not a date such as 2023-10-02T17:59:58Z",
    )
