"""PDFs made by the tests, with known text: small, valid files written byte by byte.

Written here rather than with reportlab or pypdf: storing and serving a PDF only needs its
bytes to be a well-formed file (header, objects, cross-reference table, trailer), and twenty
lines make one without a dependency.
"""

from __future__ import annotations

import zlib


def make_pdf(text: str = "A known sentence.", *, pages: int = 1, padding: int = 0) -> bytes:
    """A PDF of `pages` pages each showing `text` (ASCII) in Helvetica; `padding` bytes of
    comment make it larger without changing what it shows."""
    return make_text_pdf([[text]] * pages, padding=padding)


def make_text_pdf(
    pages: list[list[str]], *, padding: int = 0, outline: list[tuple[str, int]] = ()
) -> bytes:
    """A PDF whose page N shows the lines pages[N-1] (ASCII), one under another in Helvetica;
    `outline`: bookmarks (title, 1-based page), one level."""
    streams = []
    for lines in pages:
        shown = b" T* ".join(b"(%s) Tj" % _pdf_string(line) for line in lines)
        leading = b" 16 TL" if len(lines) > 1 else b""
        streams.append(b"BT /F1 12 Tf%s 72 720 Td %s ET" % (leading, shown))
    page_ids = [4 + 2 * n for n in range(len(pages))]
    outline_id = 4 + 2 * len(pages)  # the outline's root, then one object per bookmark
    outlines = b" /Outlines %d 0 R" % outline_id if outline else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R%s >>" % outlines,
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % pid for pid in page_ids)
        + b"] /Count %d >>" % len(pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for pid, stream in zip(page_ids, streams, strict=True):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (pid + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    if outline:
        first, last = outline_id + 1, outline_id + len(outline)
        objects.append(
            b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>"
            % (first, last, len(outline))
        )
        for n, (title, page) in enumerate(outline):
            links = b"".join(
                [
                    b" /Prev %d 0 R" % (first + n - 1) if n > 0 else b"",
                    b" /Next %d 0 R" % (first + n + 1) if first + n < last else b"",
                ]
            )
            objects.append(
                b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 null]%s >>"
                % (_pdf_string(title), outline_id, page_ids[page - 1], links)
            )
    return _pdf_file(objects, padding=padding)


def _pdf_string(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("ascii")


# A line of text at (x, y) points from the page's bottom left.
Line = tuple[float, float, str]


def make_positioned_pdf(pages: list[list[Line]], *, extra_stream: bytes = b"") -> bytes:
    """A PDF whose pages show these lines, in this order in each page's content stream (as a
    typesetter writes a two-column page: the left column, then the right).

    Any Unicode text: printable ASCII is written as itself, each other character gets a code
    of its own (128 up) that the font's ToUnicode map names, which is how a typesetter's
    subset fonts carry ligatures (ﬁ), math and non-Latin names. Readers extract text through
    that map; the glyphs shown are Helvetica's for those codes, which no test looks at.
    `extra_stream`: one more (Flate-compressed) content stream on the first page, e.g. a
    decompression bomb.
    """
    codes: dict[str, int] = {}
    for lines in pages:
        for _, _, text in lines:
            for char in text:
                if not (" " <= char <= "~") and char not in codes:
                    codes[char] = 128 + len(codes)
    if len(codes) > 128:
        raise ValueError("at most 128 characters outside ASCII in one test PDF")

    def encoded(text: str) -> bytes:
        return (
            b"<" + bytes(ord(c) if c not in codes else codes[c] for c in text).hex().encode() + b">"
        )

    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CMapName /Test def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfrange <20> <7E> <0020> endbfrange\n"
    )
    if codes:
        cmap += b"%d beginbfchar\n" % len(codes)
        for char, code in codes.items():
            cmap += b"<%02X> <%s>\n" % (code, char.encode("utf-16-be").hex().upper().encode())
        cmap += b"endbfchar\n"
    cmap += b"endcmap CMapName currentdict /CMap defineresource pop end end"

    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, once the pages' numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    page_numbers = []
    for number, lines in enumerate(pages):
        stream = b"BT /F1 10 Tf\n"
        stream += b"".join(b"1 0 0 1 %g %g Tm %s Tj\n" % (x, y, encoded(t)) for x, y, t in lines)
        stream += b"ET"
        objects.append(b"")  # the page, once its contents' numbers are known
        page_numbers.append(len(objects))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        contents = [len(objects)]
        if number == 0 and extra_stream:
            packed = zlib.compress(extra_stream, 9)
            objects.append(
                b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream"
                % (len(packed), packed)
            )
            contents.append(len(objects))
        objects[page_numbers[-1] - 1] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents [%s] >>"
            % b" ".join(b"%d 0 R" % n for n in contents)
        )
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % n for n in page_numbers),
        len(pages),
    )
    return _pdf_file(objects)


def _pdf_file(objects: list[bytes], *, padding: int = 0) -> bytes:
    """Numbered objects (the first is the catalog) as a PDF file with its cross-references;
    `padding` bytes of comment after the header."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    if padding:
        out += b"%" + b"x" * max(0, padding - 2) + b"\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def two_column_page(left: list[str], right: list[str]) -> list[Line]:
    """Lines of a two-column page, 12 points apart: the left column's, then the right's."""
    top = 720
    return [(72, top - 12 * n, text) for n, text in enumerate(left)] + [
        (320, top - 12 * n, text) for n, text in enumerate(right)
    ]


def make_long_pdf(
    pages: int, text: str = "One page of a very long file.", *, declared: int | None = None
) -> bytes:
    """A PDF of `pages` pages that all show one shared content stream: 10,000 pages in 1.6 MB,
    which a reader takes as long to extract as 10,000 distinct pages. `declared`: the page
    count its page tree claims (/Count), when it lies."""
    stream = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % _pdf_string(text)
    first_page = 5
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (first_page + n) for n in range(pages))
        + b"] /Count %d >>" % (pages if declared is None else declared),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    )
    objects += [page] * pages
    return _pdf_file(objects)


def one_line_pages_pdf(*pages: str) -> bytes:
    """A PDF with one line of text on each page."""
    return make_positioned_pdf([[(72, 700, text)] for text in pages])
