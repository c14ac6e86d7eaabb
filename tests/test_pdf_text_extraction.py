"""A PDF's text is read page by page in a child process: what search needs of a paper's text
(ligatures as letters, hyphenated words whole, columns in reading order, any script) and no
PDF, however broken or hostile, holding up or crashing the worker that asked."""

from __future__ import annotations

import pytest

from papers.search import schema
from pdfs import extraction
from pdfs.extraction import Failure, extract_text, normalise_page
from tests.pdf_files import make_pdf, make_positioned_pdf, two_column_page

LIMITS = {"timeout": 30, "memory_mb": 512, "max_chars": 200_000, "max_pages": 500}


def read(data: bytes, **limits) -> extraction.Extracted:
    return extract_text(data, **(LIMITS | limits))


def test_two_columns_are_read_left_column_first():
    pdf = make_positioned_pdf(
        [
            two_column_page(
                ["The left column opens here", "and the left column ends."],
                ["The right column opens here", "and the right column ends."],
            )
        ]
    )

    text = read(pdf).text

    order = [
        text.index(part) for part in ("left column opens", "left column ends", "right column opens")
    ]
    assert order == sorted(order)


def test_ligatures_are_read_as_letters_and_hyphenated_words_whole():
    pdf = make_positioned_pdf([[(72, 700, "a ﬁne-grained classi-"), (72, 688, "ﬁcation of ﬀects")]])

    text = read(pdf).text

    assert "fine-grained classification of ffects" in text
    assert "ﬁ" not in text


def test_math_and_non_latin_names_keep_their_characters():
    pdf = make_positioned_pdf(
        [[(72, 700, "Zhāng Wěi 张伟 and Ярослав Мудрый"), (72, 688, "bound: ∑ α_i ≤ x² + ∞")]]
    )

    text = read(pdf).text

    assert "Zhāng Wěi 张伟 and Ярослав Мудрый" in text
    # Superscripts are plain digits for search (NFKC), symbols and Greek stay.
    assert "∑ α_i ≤ x2 + ∞" in text


def test_pages_are_kept_apart_and_counted():
    pdf = make_positioned_pdf([[(72, 700, f"words of page {n}")] for n in range(1, 4)])

    extracted = read(pdf)

    assert extracted.pages == ["words of page 1", "words of page 2", "words of page 3"]
    assert extracted.text.split(schema.PAGE_BREAK) == extracted.pages
    assert extracted.page_count == 3


def test_the_index_splits_pages_where_extraction_put_them():
    assert extraction.PAGE_BREAK == schema.PAGE_BREAK


def test_a_300_page_pdf_is_read_whole():
    pdf = make_positioned_pdf([[(72, 700, f"page {n} of a long report")] for n in range(1, 301)])

    extracted = read(pdf)

    assert extracted.failure is None
    assert extracted.page_count == len(extracted.pages) == 300
    assert extracted.pages[299] == "page 300 of a long report"


def test_text_past_the_limit_is_left_out_and_said():
    pdf = make_positioned_pdf([[(72, 700, "x" * 40)] for _ in range(10)])

    extracted = read(pdf, max_chars=100)

    assert len(extracted.text) == 100
    assert extracted.truncated
    assert extracted.page_count == 10
    assert len(extracted.pages) == 3  # 40 + 1 + 40 + 1 + 18


def test_a_file_that_is_not_a_pdf_is_refused_without_a_reader():
    extracted = read(b"<html><body>Sign in to read this paper</body></html>")

    assert extracted.failure == Failure.NOT_A_PDF
    assert extracted.pages == []


def test_a_broken_pdf_is_a_failure_with_the_readers_words():
    extracted = read(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\n%%garbage")

    assert extracted.failure == Failure.BROKEN
    assert extracted.message  # what pypdf said, for the curator


def test_a_truncated_pdf_reads_what_it_can_or_fails_cleanly():
    whole = make_positioned_pdf([[(72, 700, "text before the cut")]])

    extracted = read(whole[: len(whole) // 2])

    # pypdf may rebuild the cross-references of a cut file; either way nothing is raised.
    assert extracted.failure in (None, Failure.BROKEN)


def test_a_pdf_over_the_time_limit_is_stopped():
    extracted = read(make_pdf(), timeout=0.01)

    assert extracted.failure == Failure.TIME_LIMIT
    assert "0.01 s" in extracted.message


def test_a_pdf_over_the_memory_limit_is_stopped():
    # A few megabytes of address space: the child cannot even load the reader.
    extracted = read(make_pdf(), memory_mb=16)

    assert extracted.failure == Failure.MEMORY_LIMIT


def test_a_decompression_bomb_is_refused_not_inflated():
    bomb = make_positioned_pdf([[(72, 700, "small")]], extra_stream=b" " * 200_000_000)
    assert len(bomb) < 1_000_000

    extracted = read(bomb, memory_mb=256)

    assert extracted.failure in (Failure.BROKEN, Failure.MEMORY_LIMIT)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ﬁne ﬂow ﬃx", "fine flow ffix"),
        ("classi-\nfication", "classification"),
        ("R-\nCNN", "R-\nCNN"),  # an upper-case word keeps its hyphen
        ("a\x00b\x0cc", "a b c"),  # NUL and form feeds never reach the database
        ("lone \ud800 surrogate", "lone ? surrogate"),
    ],
)
def test_normalise_page(raw, expected):
    assert normalise_page(raw) == expected
