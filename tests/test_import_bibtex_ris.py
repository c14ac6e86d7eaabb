r"""BibTeX and RIS readers: reference-manager exports become PaperRecords, bad input fails with
file:line. Pure: no database (our BibTeX export is fed model-like stand-ins)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from annotations.exports import bibtex_for_items
from papers.importing import bibtex, ris
from papers.importing.records import ImportFailed, PaperRecord
from papers.models import TagKind

REFERENCES = Path(__file__).resolve().parent / "data" / "references"
FORUM = "https://openreview.net/forum?id=GN921JHCRw"
RAPTOR = "RAPTOR: Recursive Abstractive Processing for Tree-Organized Retrieval"
GPT4_PDF = "https://arxiv.org/pdf/2303.08774v6.pdf"
GPT4_DOI = "10.48550/arXiv.2303.08774"
PAPER = "conference-paper"  # an @inproceedings


def record(**fields) -> PaperRecord:
    """A record with the defaults of a reference that gives nothing but `fields`."""
    values = {
        "title": "",
        "forum_id": "",
        "forum_url": "",
        "pdf_url": "",
        "authors": [],
        "tags": [],
        "abstract": "",
        "source": "refs.bib",
        "line": 1,
    }
    return PaperRecord(**(values | fields))


def read_bib(text: str) -> list[PaperRecord]:
    return list(bibtex.read(text, "refs.bib"))


def read_ris(text: str) -> list[PaperRecord]:
    return list(ris.read(text, "refs.ris"))


def one_field(name: str, value: str) -> PaperRecord:
    [only] = read_bib(f"@article{{key,\n  {name} = {{{value}}},\n}}\n")
    return only


def bib_failure(text: str) -> str:
    with pytest.raises(ImportFailed) as failure:
        read_bib(text)
    return str(failure.value)


def ris_failure(text: str) -> str:
    with pytest.raises(ImportFailed) as failure:
        read_ris(text)
    return str(failure.value)


# BibTeX


def test_zotero_bib_gives_every_field_and_the_line_of_each_entry():
    text = (REFERENCES / "zotero.bib").read_text(encoding="utf-8")
    source = "zotero.bib"
    assert list(bibtex.read(text, source)) == [
        record(
            title=RAPTOR,
            forum_url=FORUM,
            authors=[
                "Parth Sarthi",
                "Jörg Müller",
                "María García",
                "Anna van der Berg Jr.",
                "Christopher D. Manning",
            ],
            tags=["ICLR 2024"],  # "The Twelfth International Conference on ..." of 2024
            abstract=(
                "Retrieval-augmented language models can better adapt to changes in world "
                "state. We recursively embed, cluster & summarize chunks of text, improving "
                "accuracy by 20% on QuALITY."
            ),
            source=source,
            line=2,
            keywords=["retrieval", "summarization", "long context"],
            year=2024,
            publication_type="conference-paper",
        ),
        record(
            title="GPT-4 Technical Report",
            pdf_url=GPT4_PDF,
            authors=["OpenAI"],
            abstract=(
                "We report the development of GPT-4, a large-scale, multimodal model.\n\n"
                "Its post-training alignment process results in improved performance on "
                "measures of factuality."
            ),
            source=source,
            line=12,
            arxiv_id="2303.08774",
            year=2023,
            doi=GPT4_DOI,
            publication_type="preprint",  # an @article whose journal is "arXiv preprint"
        ),
        record(
            title="Understanding disentangling in $\\beta$-VAE",
            authors=["Christopher P. Burgess", "Irina Higgins", "Arka Pal", "Loïc Matthey"],
            source=source,
            line=26,
            keywords=["Computer Science - Machine Learning", "Statistics - Machine Learning"],
            arxiv_id="1804.03599",
            year=2018,
            doi="10.48550/arXiv.1804.03599",
            publication_type="preprint",  # @misc with an arXiv eprint
        ),
    ]


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"{\"u}ber and \"{u}ber and \"uber", "über and über and über"),
        (r"Caf{\'e} na{\"\i}ve {\c c} \v{S} {\ss} {\o} {\L}ukasz", "Café naïve ç Š ß ø Łukasz"),
        (r"R\&D at 50\% \$5 \#1 a\_b", "R&D at 50% $5 #1 a_b"),
        (
            r"{BERT}: {Pre}-training of {Deep} Transformers",
            "BERT: Pre-training of Deep Transformers",
        ),
        (r"$\alpha$-VAE", r"$\alpha$-VAE"),
        (
            r"Bounds for $x_{1}^{2} + \sqrt{y}$ in {\"O}sterreich",
            r"Bounds for $x_{1}^{2} + \sqrt{y}$ in Österreich",
        ),
        (r"\textbf{Bold} and \emph{emphasis}", "Bold and emphasis"),
        ("100% sure & more", "100% sure & more"),  # bare: text, not a comment or a table cell
        ("a -- b --- c ``quoted''", "a -- b --- c ``quoted''"),  # as typed, see _LIGATURES
        ("D.~E. Knuth's  book,\n  wrapped", "D. E. Knuth's book, wrapped"),
        (r"\textbraceleft{}x\textbraceright{} \textasciicircum{} \textbackslash{}", "{x} ^ \\"),
    ],
)
def test_bibtex_title_is_decoded_to_unicode_with_mathematics_kept(latex, text):
    assert one_field("title", latex).title == text


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"Transformers~\cite{vaswani2017} dominate.", "Transformers dominate."),
        (r"As in \citep[see][p.~3]{a, b}, and \citet*{c}; done", "As in, and; done"),
        (r"Prior work (\cite{x}) is slow [\citep{y}; \parencite{z}].", "Prior work is slow."),
        ("Line one\n\\cite{a}. Line two", "Line one. Line two"),
        ("First paragraph.\n\n\\autocite{a}Second.", "First paragraph.\n\nSecond."),
        # LaTeX's line break (\\) and then "cite{a}" as text: no citation to drop.
        (r"A \\cite{a} line break", "A citea line break"),
    ],
)
def test_bibtex_citations_in_an_abstract_are_dropped_with_the_space_before_them(latex, text):
    assert one_field("abstract", latex).abstract == text


@pytest.mark.parametrize(
    ("field", "names"),
    [
        ("Vaswani, Ashish and Shazeer, Noam", ["Ashish Vaswani", "Noam Shazeer"]),
        ("Ashish Vaswani and Noam Shazeer", ["Ashish Vaswani", "Noam Shazeer"]),
        (
            "van der Berg, Jr., Anna and Ludwig van Beethoven",
            ["Anna van der Berg Jr.", "Ludwig van Beethoven"],
        ),
        ("{OpenAI} and {Google DeepMind}", ["OpenAI", "Google DeepMind"]),
        ("{Simon and Schuster} and Doe, Jane", ["Simon and Schuster", "Jane Doe"]),
        ("M{\\\"u}ller, J{\\\"o}rg and Garc{\\'i}a, Mar{\\'i}a", ["Jörg Müller", "María García"]),
        ("Doe, Jane and Roe, Richard and others", ["Jane Doe", "Richard Roe"]),
        ("D.~E. Knuth", ["D. E. Knuth"]),
        ("", []),
    ],
)
def test_bibtex_authors_are_first_name_first_in_order(field, names):
    assert one_field("author", field).authors == names


def test_bibtex_strings_are_expanded_and_comments_preambles_are_not_papers():
    text = """% JabRef header
@comment{jabref-meta: databaseType:bibtex;}
@preamble{"\\newcommand{\\noop}[1]{}"}
@string{iclr = "International Conference on Learning Representations"}
@String{Y = {2024}}

Free text between entries is a comment too.

@inproceedings{a,
  title = {One},
  booktitle = ICLR # " " # y,
  year = Y,
}
@string{iclr = {ICLR}}
@inproceedings(b,
  title = "Two",
  booktitle = iclr,
  year = 2023
)
@inproceedings{a,
  title = {Three, under a key used before},
}
"""
    assert read_bib(text) == [
        record(title="One", tags=["ICLR 2024"], line=9, year=2024, publication_type=PAPER),
        record(title="Two", tags=["ICLR 2023"], line=15, year=2023, publication_type=PAPER),
        record(title="Three, under a key used before", line=20, publication_type=PAPER),
    ]


def test_bibtex_venue_year_and_field_names_as_exporters_write_them():
    text = """@article{a,
  TITLE = {Journal paper},
  Journal = {Journal of Machine Learning Research},
  date = {2024-05-07},
}
@inproceedings{b,
  title = {Both},
  booktitle = {NeurIPS},
  journal = {Not this one},
  year = {in press},
}
"""
    assert read_bib(text) == [
        record(
            title="Journal paper",
            tags=["Journal of Machine Learning Research"],
            year=2024,
            publication_type="journal-article",
        ),
        record(title="Both", tags=["NeurIPS"], line=6, publication_type="conference-paper"),
    ]


@pytest.mark.parametrize(
    ("fields", "forum_url", "pdf_url", "arxiv_id"),
    [
        ({"url": FORUM}, FORUM, "", ""),
        (
            {"url": "https://openreview.net/pdf?id=GN921JHCRw"},
            "",
            "https://openreview.net/pdf?id=GN921JHCRw",
            "",
        ),
        ({"url": "https://openreview.net/forum"}, "", "", ""),
        ({"url": "https://arxiv.org/abs/2310.01234v3"}, "", "", "2310.01234"),
        ({"url": "http://export.arxiv.org/abs/hep-th/9901001"}, "", "", "hep-th/9901001"),
        ({"url": "https://example.org/paper.PDF"}, "", "https://example.org/paper.PDF", ""),
        ({"url": "https://aclanthology.org/2023.acl-long.1"}, "", "", ""),
        ({"eprint": "2310.01234v2", "archiveprefix": "arXiv"}, "", "", "2310.01234"),
        ({"eprint": "arXiv:2310.01234", "eprinttype": "arxiv"}, "", "", "2310.01234"),
        ({"eprint": "2310.01234"}, "", "", ""),  # no archive named: could be any
        ({"eprint": "not an id", "archiveprefix": "arXiv"}, "", "", ""),
        ({"doi": "10.48550/ARXIV.2310.01234"}, "", "", "2310.01234"),
        (
            {
                "eprint": "1111.22222",
                "archiveprefix": "arXiv",
                "url": "https://arxiv.org/abs/2310.01234",
            },
            "",
            "",
            "1111.22222",
        ),
    ],
)
def test_bibtex_links_and_arxiv_id(fields, forum_url, pdf_url, arxiv_id):
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    [only] = read_bib(f"@misc{{key,\n{body}\n}}\n")
    assert (only.forum_url, only.pdf_url, only.arxiv_id) == (forum_url, pdf_url, arxiv_id)


@pytest.mark.parametrize(
    ("cited", "year", "venue"),
    [
        # Zotero, from the proceedings' pages, and the venues' own BibTeX.
        ("Advances in Neural Information Processing Systems", "2023", "NeurIPS 2023"),
        ("Advances in Neural Information Processing Systems 36", "2023", "NeurIPS 2023"),
        (
            "Thirty-seventh Conference on Neural Information Processing Systems",
            "2023",
            "NeurIPS 2023",
        ),
        ("The Twelfth International Conference on Learning Representations", "2024", "ICLR 2024"),
        (
            "Proceedings of the 40th International Conference on Machine Learning",
            "2023",
            "ICML 2023",
        ),
        (
            "Proceedings of the {IEEE/CVF} Conference on Computer Vision and Pattern Recognition "
            "({CVPR})",
            "2023",
            "CVPR 2023",
        ),
        (
            "Proceedings of the 61st Annual Meeting of the Association for Computational "
            "Linguistics (Volume 1: Long Papers)",
            "2023",
            "ACL 2023",
        ),
        (
            "Proceedings of the 2023 Conference on Empirical Methods in Natural Language "
            "Processing",
            "2024",  # the year in the name is the conference's
            "EMNLP 2023",
        ),
        ("Proceedings of the AAAI Conference on Artificial Intelligence", "2024", "AAAI 2024"),
        # Acronyms, however joined to the year.
        ("NeurIPS-2023", "2023", "NeurIPS 2023"),
        ("NeurIPS 2023", "", "NeurIPS 2023"),
        ("neurips", "2022", "NeurIPS 2022"),
        ("ICML", "", "ICML"),
        # A journal OpenReview names without a year, as OpenReview names it.
        ("Transactions on Machine Learning Research", "2023", "TMLR"),
        ("TMLR", "2024", "TMLR"),
        ("Trans. Mach. Learn. Res.", "2024", "TMLR"),  # DBLP
        # Others are kept as written.
        ("Journal of Machine Learning Research", "2020", "Journal of Machine Learning Research"),
        (
            "Findings of the Association for Computational Linguistics: EMNLP 2023",
            "2023",
            "Findings of the Association for Computational Linguistics: EMNLP 2023",
        ),
        ("ICLR 2024 Workshop on Tiny Papers", "2024", "ICLR 2024 Workshop on Tiny Papers"),
    ],
)
def test_bibtex_well_known_venues_are_named_by_acronym_and_year(cited, year, venue):
    [only] = read_bib(
        f"@inproceedings{{key,\n  booktitle = {{{cited}}},\n  year = {{{year}}},\n}}\n"
    )
    assert only.tags == [venue]


@pytest.mark.parametrize(
    "abstract",
    [" " * 100_000 + r"\x", "( " + " " * 100_000 + "x", r"\cite" + " " * 100_000],
    ids=["spaces before a command", "spaces in parentheses", "spaces after \\cite"],
)
def test_citations_are_found_in_linear_time(abstract):
    # The pattern used to start with the spaces before a citation: 20,000 spaces took 15 s.
    started = time.perf_counter()
    read_bib(f"@article{{key,\n  title = {{T}},\n  abstract = {{{abstract}}},\n}}\n")
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("suffix", ["(a)", " 1"])
def test_a_hostile_venue_name_is_read_in_linear_time(suffix):
    # Each "(a)" or " 1" is a suffix a venue's long name may carry; taking 30,000 of them off
    # one at a time took minutes.
    cited = "Proceedings of the 40th International Conference on Machine Learning" + suffix * 30_000
    started = time.perf_counter()
    [only] = read_bib(f"@inproceedings{{key,\n  booktitle = {{{cited}}},\n}}\n")
    assert time.perf_counter() - started < 2
    assert only.tags == [" ".join(cited.split())]


@pytest.mark.parametrize(
    ("journal", "arxiv_id"),
    [
        ("arXiv preprint arXiv:2301.01234", "2301.01234"),  # Google Scholar
        ("arXiv preprint arXiv:2301.01234v2", "2301.01234"),
        ("CoRR abs/2301.01234", "2301.01234"),
        ("CoRR", ""),  # DBLP
        ("ArXiv", ""),  # Semantic Scholar
        ("arXiv e-prints", ""),  # ADS
        ("arXiv preprint", ""),
    ],
)
def test_bibtex_arxiv_as_journal_is_no_venue_but_gives_the_arxiv_id(journal, arxiv_id):
    [only] = read_bib(f"@article{{key,\n  title = {{T}},\n  journal = {{{journal}}},\n}}\n")
    assert (only.tags, only.arxiv_id) == ([], arxiv_id)


def test_bibtex_arxiv_journal_does_not_replace_the_eprint_arxiv_id():
    [only] = read_bib(
        "@article{key,\n  journal = {arXiv preprint arXiv:2301.01234},\n"
        "  eprint = {2310.05555}, archiveprefix = {arXiv},\n}\n"
    )
    assert only.arxiv_id == "2310.05555"


def test_bibtex_url_is_not_decoded_as_latex():
    url = "https://example.org/a%20b_c~d/x.pdf"
    assert one_field("url", url).pdf_url == url


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "@article{a,\n  title = {never closed,\n  year = 2024\n\n@article{b, title = {ok}}\n",
            "refs.bib:1: cannot read this @article entry: Unexpected block start: `@article`. "
            "Was still looking for field-value closing `}`",
            id="unclosed-brace",
        ),
        pytest.param(
            "\n\n@inproceedings{a title = {x}}\n",
            "refs.bib:3: cannot read this @inproceedings entry: Expected comma after entry key, "
            "but found =",
            id="no-comma-after-key",
        ),
        pytest.param(
            "@article{a,\n  title = {x}\n",
            "refs.bib:1: cannot read this @article entry: Unexpectedly reached end of file.",
            id="end-of-file",
        ),
        pytest.param(
            "@article{a,\n  title = {x},\n  booktitle = iclr,\n}\n",
            "refs.bib:3: booktitle: 'iclr' is not a defined @string",
            id="undefined-string",
        ),
        pytest.param(
            "@string{a = b}\n@article{x, title = a}\n",
            "refs.bib:1: @string a: 'b' is not a defined @string",
            id="string-of-undefined-string",
        ),
        pytest.param(
            "@article{a,\n  title = {a} # ,\n}\n",
            "refs.bib:2: title: a value is missing (around '#')",
            id="dangling-hash",
        ),
        pytest.param(
            "@article{a,\n  title = {a} {b},\n}\n",
            "refs.bib:2: title: expected '#' between the parts of the value, found '{'",
            id="parts-without-hash",
        ),
        pytest.param(
            "@article{a,\n  title = {x},\n  Title = {y},\n}\n",
            "refs.bib:3: the field 'title' is given twice in this entry (first on line 2); "
            "which one is meant is unclear",
            id="field-twice",
        ),
        pytest.param(
            "@article{a,\n  author = {Doe, John, Jr, Extra},\n}\n",
            "refs.bib:2: author: cannot read the name 'Doe, John, Jr, Extra': Too many commas",
            id="name-with-three-commas",
        ),
        pytest.param(
            "@article{a,\n  title = {" + "{" * 40 + "x" + "}" * 40 + "},\n}\n",
            "refs.bib:2: title: braces or environments nest deeper than 32 levels",
            id="deep-braces",
        ),
        pytest.param(
            "@article{a,\n  abstract = {"
            + "\\begin{quote}" * 40
            + "x"
            + "\\end{quote}" * 40
            + "},\n}\n",
            "refs.bib:2: abstract: braces or environments nest deeper than 32 levels",
            id="deep-environments",
        ),
        pytest.param(
            '% nothing but\n@comment{x}\n@string{a = {b}}\n@preamble{"x"}\n',
            "refs.bib: no BibTeX entries in the file (such as '@article{')",
            id="no-entries",
        ),
        pytest.param(
            "", "refs.bib: no BibTeX entries in the file (such as '@article{')", id="empty"
        ),
    ],
)
def test_bibtex_malformed_input_fails_at_its_line(text, message):
    assert bib_failure(text) == message


def test_bibtex_entries_before_a_bad_one_are_read_first():
    records = bibtex.read("@misc{a, title = {Fine}}\n@misc{b title = {x}}\n", "refs.bib")
    assert next(records).title == "Fine"
    with pytest.raises(ImportFailed, match=r"^refs.bib:2: cannot read this @misc entry"):
        next(records)


def test_bibtex_reads_10000_entries_with_their_lines():
    entry = "@inproceedings{k%d,\n  title = {Paper {%d}},\n  author = {Doe, Jane},\n}\n\n"
    records = read_bib("".join(entry % (n, n) for n in range(10_000)))
    assert len(records) == 10_000
    assert (records[-1].title, records[-1].line) == ("Paper 9999", 49_996)


# Our own BibTeX export, read back


def _reading_list_item(pk: int, title: str, authors: list[str], venue: str, forum_url: str):
    """What bibtex_for_items reads of a reading-list item, without the database."""
    tags = [SimpleNamespace(tag=SimpleNamespace(kind=TagKind.VENUE, name=venue))]
    paper = SimpleNamespace(
        pk=pk,
        title=title,
        display_title=title,
        author_list=authors,
        paper_tags=SimpleNamespace(all=lambda: tags),
        forum_url=forum_url,
        pdf_url="",
        year=None,
        doi="",
        abstract="",
        arxiv_id="",
        publication_type="",
        created_at=datetime(2021, 5, 1, tzinfo=UTC),
    )
    return SimpleNamespace(paper=paper, status="to_read", priority=None)


ROUND_TRIP_TITLES = [
    "Über-fast {Braces} & 50% of $x$_1 #2 ~ C:\\path",
    '} @misc(injected, title = "Injected entry", author = "Mallory")',
    "an unbalanced { opening brace",
    "{" * 300,
    "100% sure, % not a comment",
    "$\\alpha$-VAE & a_b ~ c #1 ^ 2",
    "\\textbraceleft{} looks like LaTeX \\& is not",
    "Ünïcödé, 日本語 and 𝔘𝔫𝔦",
    "A -- B --- C ``quoted'' !` ?`",
    "ends in a backslash \\",
]
ROUND_TRIP_AUTHORS = [
    "Zoë Ångström-Bär",
    "Ludwig van Beethoven",
    "José {Weird} Núñez",
    "Plato",
    "Eve} and {Mallory",
    "Tom and Jerry",
    "others",
    "Smith, Jr., John",
    "100% Ada",
    "R&D Team",
    "Trailing Backslash\\",
]


def test_our_bibtex_export_reads_back_with_the_same_titles_and_authors():
    items = [
        _reading_list_item(n, title, ROUND_TRIP_AUTHORS, "ICLR 2024", f"{FORUM}{n}")
        for n, title in enumerate(ROUND_TRIP_TITLES)
    ]
    records = read_bib(bibtex_for_items(items))
    assert [r.title for r in records] == ROUND_TRIP_TITLES
    assert all(r.authors == ROUND_TRIP_AUTHORS for r in records)
    # The export cites the venue by its full name (papers.venues.venue_full_name); reading it
    # back gives the venue it was written from.
    assert all(r.tags == ["ICLR 2024"] and r.year == 2024 for r in records)
    assert [r.forum_url for r in records] == [f"{FORUM}{n}" for n in range(len(items))]


# RIS


def test_zotero_ris_gives_every_field_and_the_line_of_each_record():
    text = (REFERENCES / "zotero.ris").read_text(encoding="utf-8")
    source = "zotero.ris"
    assert list(ris.read(text, source)) == [
        record(
            title=RAPTOR,
            forum_url=FORUM,
            authors=[
                "Parth Sarthi",
                "Jörg Müller",
                "Anna van der Berg Jr.",
                "Christopher D. Manning",
            ],
            tags=["ICLR 2024"],  # "The Twelfth International Conference on ..." of 2024
            abstract=(
                "Retrieval-augmented language models can better adapt to changes in world state."
            ),
            source=source,
            line=1,
            keywords=["retrieval", "summarization"],
            year=2024,
            publication_type="conference-paper",  # CONF
        ),
        record(
            title="GPT-4 Technical Report",
            pdf_url=GPT4_PDF,
            authors=["OpenAI"],
            abstract=(
                "We report the development of GPT-4, a large-scale, multimodal model.\n\n"
                "Its post-training alignment process results in improved performance on "
                "$\\alpha$-measures & factuality."
            ),
            source=source,
            line=18,
            arxiv_id="2303.08774",
            year=2023,
            doi=GPT4_DOI,
            publication_type="preprint",  # JOUR whose journal is "arXiv preprint"
        ),
        record(
            title="Understanding disentangling in β-VAE",
            authors=["Christopher P. Burgess", "Irina Higgins"],
            source=source,
            line=34,
            keywords=["Computer Science - Machine Learning"],
            arxiv_id="1804.03599",
            year=2018,
            doi="10.48550/arXiv.1804.03599",
            publication_type="preprint",  # UNPB
        ),
    ]


def test_ris_alternative_tags_a_publisher_header_and_text_between_records():
    text = """Provider: Example Publisher
Database: Example Library
Content: text/plain; charset="UTF-8"

TY  - CHAP
T1  - Older title tag
A1  - King, Martin Luther, Jr.
A1  - Example Consortium
AU  - Odd, Name, With, Commas
N2  - The abstract as N2.
BT  - Proceedings of Something
Y1  - 1999/12/31/
UR  - https://example.org/landing; https://example.org/chapter.pdf
ER  -
Between records: ignored.
TY  - JOUR
TI  - Journal article
JF  - Journal of Full Names
JO  - J. Abbrev.
DA  - 2020/01/02/
ER  - 
"""
    assert read_ris(text) == [
        record(
            title="Older title tag",
            pdf_url="https://example.org/chapter.pdf",
            authors=["Martin Luther King Jr.", "Example Consortium", "Odd, Name, With, Commas"],
            tags=["Proceedings of Something"],
            abstract="The abstract as N2.",
            source="refs.ris",
            line=5,
            year=1999,
            publication_type="book-chapter",  # CHAP
        ),
        record(
            title="Journal article",
            tags=["Journal of Full Names"],
            source="refs.ris",
            line=16,
            year=2020,
            publication_type="journal-article",  # JOUR
        ),
    ]


def test_ris_venues_are_named_as_in_bibtex():
    text = """TY  - CONF
TI  - Zotero conference paper
T2  - Advances in Neural Information Processing Systems
PY  - 2023
ER  - 
TY  - JOUR
TI  - Google Scholar preprint
JO  - arXiv preprint arXiv:2301.01234
PY  - 2023
ER  - 
"""
    first, second = read_ris(text)
    assert (first.tags, first.arxiv_id) == (["NeurIPS 2023"], "")
    assert (second.tags, second.arxiv_id) == ([], "2301.01234")


def test_ris_values_wrapped_after_70_characters_are_joined_back():
    title = "A title long enough that an old exporter wrapped it after seventy characters"
    url = "https://openreview.net/forum?id=GN921JHCRw&referrer=%5BAuthor%20Console%5D(%2Fgroup)"
    assert len(title[:70]) == len(url[:70]) == 70
    text = (
        f"TY  - JOUR\nTI  - {title[:70]}\n{title[70:]}\nUR  - {url[:70]}\n{url[70:]}\n"
        "AB  - First line of the abstract\nsecond line.\n\nNew paragraph.\n\nER  - \n"
    )
    [only] = read_ris(text)
    assert (only.title, only.forum_url) == (title, url)
    assert only.abstract == "First line of the abstract\nsecond line.\n\nNew paragraph."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "TY  - JOUR\nTI  - A title\n\nAU  - Doe, Jane\n",
            "refs.ris:1: the file ends before this record's 'ER  - ' line",
            id="no-ER",
        ),
        pytest.param(
            "TY  - JOUR\nTI  - A title\nthat goes on\nER  - \n",
            "refs.ris:3: expected 'XX  - value' (a two-character tag, two spaces, a dash, "
            "a space), got 'that goes on'; only AB, N1, N2 and values wrapped "
            "after 70 characters go on over several lines",
            id="title-over-two-lines",
        ),
        pytest.param(
            "TY  - JOUR\nAB  - An abstract\nTI - Spaced wrong\nER  - \n",
            "refs.ris:3: expected 'XX  - value' (a two-character tag, two spaces, a dash, "
            "a space), got 'TI - Spaced wrong'; only AB, N1, N2 and values wrapped "
            "after 70 characters go on over several lines",
            id="mistyped-tag-after-abstract",
        ),
        pytest.param(
            "TY  - JOUR\nTI  - First\n\nTY  - JOUR\nTI  - Second\nER  - \n",
            "refs.ris:4: a new record starts before the record of line 1 ends",
            id="ER-missing-between-records",
        ),
        pytest.param(
            "TY  - JOUR\nER  - \nAU  - Doe, Jane\nER  - \n",
            "refs.ris:3: 'AU  - Doe, Jane' is outside a record; records start 'TY  - '",
            id="tag-outside-a-record",
        ),
        pytest.param(
            "TY - JOUR\nTI  - Spaced wrong\nER  - \n",
            "refs.ris:1: 'TY - JOUR' is outside a record; records start 'TY  - '",
            id="mistyped-TY",
        ),
        pytest.param(
            "Provider: nothing else\n",
            "refs.ris: no RIS records in the file (a record starts 'TY  - ')",
            id="no-records",
        ),
    ],
)
def test_ris_malformed_input_fails_at_its_line(text, message):
    assert ris_failure(text) == message


# Format detection

JSONL = '{"title": "A", "abstract": "B", "url": "https://openreview.net/forum?id=x"}\n'
CSV = "title,authors,abstract\nA,Ann One,B\n"
TABLE = "RAPTOR | https://openreview.net/forum?id=x | Ann One | ICLR 2024,Poster | Abstract. |\n"
PLAIN = "ICLR 2024 Papers\n\nWe study @ signs {in} text.\n"
BIB = "% Encoding: UTF-8\n\n  @Article{key,\n  title = {x}}\n"
RIS = "Provider: Example\nDatabase: Example\n\nTY  - JOUR\nER  - \n"


@pytest.mark.parametrize(
    ("text", "is_bibtex", "is_ris"),
    [
        (BIB, True, False),
        ("@comment{exported}\n@misc(a, title = {x})\n", True, False),
        ("% only a comment\n", False, False),
        (RIS, False, True),
        ("TY  - JOUR\nER  - \n", False, True),
        ("\n" * 30 + "TY  - JOUR\nER  - \n", False, False),
        ("TY - JOUR\nER  - \n", False, False),
        (JSONL, False, False),
        (CSV, False, False),
        (TABLE, False, False),
        (PLAIN, False, False),
        ("", False, False),
    ],
)
def test_looks_like(text, is_bibtex, is_ris):
    assert (bibtex.looks_like(text), ris.looks_like(text)) == (is_bibtex, is_ris)


def test_pmlr_bibtex_gives_the_pdf_of_its_pdf_field():
    text = (REFERENCES / "pmlr.bib").read_text(encoding="utf-8")
    (record,) = bibtex.read(text, "pmlr.bib")
    assert record.title == r"On the $\mathcal{O}(\sqrt{T})$ Regret of Thompson Sampling"
    assert record.authors == ["Jörg Müller", "Søren Kierkegård", "José García"]
    assert (record.tags, record.year) == (["ICML 2023"], 2023)
    assert record.pdf_url == "https://proceedings.mlr.press/v202/muller23a/muller23a.pdf"
    assert record.abstract.endswith("with 50% fewer assumptions.")


def test_ris_l1_gives_the_pdf_and_a_local_file_there_is_ignored():
    text = (
        "TY  - CONF\nTI  - Segment Anything in High Quality\nPY  - 2023\n"
        "UR  - https://openaccess.thecvf.com/content/CVPR2023/html/Ke_CVPR_2023_paper.html\n"
        "L1  - https://openaccess.thecvf.com/content/CVPR2023/papers/Ke_CVPR_2023_paper.pdf\n"
        "AB  - Masks.\nER  - \n"
        "TY  - CONF\nTI  - Local\nL1  - file:///home/me/Zotero/storage/AB12/local.pdf\n"
        "AB  - Local.\nER  - \n"
    )
    cvf, local = ris.read(text, "cvpr.ris")
    assert cvf.pdf_url == (
        "https://openaccess.thecvf.com/content/CVPR2023/papers/Ke_CVPR_2023_paper.pdf"
    )
    assert local.pdf_url == ""


def test_bibtex_proceedings_are_no_papers_and_give_their_papers_venue_and_year():
    # As Zotero and DBLP export a paper with its volume: the volume after the paper, named by
    # the paper's crossref (in another case), holding the venue and year the paper leaves out.
    text = (
        "@inproceedings{child,\n"
        "  title = {A Paper in the Volume},\n"
        "  author = {Doe, Jane},\n"
        "  crossref = {ICML2024},\n"
        "  abstract = {Inherits its venue and year.},\n"
        "}\n"
        "@inproceedings{own,\n"
        "  title = {A Paper with Its Own Venue},\n"
        "  crossref = {icml2024},\n"
        "  journal = {Journal of Machine Learning Research},\n"
        "  year = {2020},\n"
        "  abstract = {Keeps what it gives itself.},\n"
        "}\n"
        "@proceedings{icml2024,\n"
        "  title = {Proceedings of the 41st International Conference on Machine Learning},\n"
        "  year = {2024},\n"
        "  doi = {10.5555/volume},\n"
        "}\n"
    )
    child, own = read_bib(text)
    assert (child.title, child.tags, child.year) == ("A Paper in the Volume", ["ICML 2024"], 2024)
    assert (own.tags, own.year) == (["Journal of Machine Learning Research"], 2020)


def test_bibtex_file_of_only_proceedings_has_no_papers():
    message = bib_failure("@proceedings{v,\n  title = {Proceedings of ICML},\n  year = 2024,\n}\n")
    assert "no BibTeX entries" in message


def test_bibtex_strings_that_double_each_other_fail_instead_of_filling_memory():
    # BibTeX's billion laughs: each @string joins the one before to itself, 2**40 copies of a
    # 40-character value at the end. Expanding it all once took the whole machine's memory.
    strings = ['@string{s0 = "lol lol lol lol lol lol lol lol lol lol "}']
    strings += [f"@string{{s{n} = s{n - 1} # s{n - 1}}}" for n in range(1, 41)]
    text = "\n".join(strings) + "\n@article{a,\n  title = s40,\n}\n"
    started = time.perf_counter()
    message = bib_failure(text)
    assert time.perf_counter() - started < 5
    assert message.startswith("refs.bib:")
    assert f"longer than {bibtex.MAX_EXPANDED} characters (@string names expanded)" in message


def test_bibtex_a_field_far_too_long_to_be_real_fails_before_it_is_decoded():
    # Decoding LaTeX costs seconds a megabyte: 60,000 math snippets took 5 s to be refused.
    abstract = r"$x$ \alpha " * 60_000
    started = time.perf_counter()
    message = bib_failure(f"@article{{a,\n  title = {{T}},\n  abstract = {{{abstract}}},\n}}\n")
    assert time.perf_counter() - started < 5
    assert message == (
        "refs.bib:3: abstract: the value has 540000 characters besides spaces as written; "
        f"at most {bibtex.MAX_WRITTEN} are read"
    )
