"""PDFs made by the tests, with known text: small, valid files written byte by byte.

Written here rather than with reportlab or pypdf: storing and serving a PDF only needs its
bytes to be a well-formed file (header, objects, cross-reference table, trailer), and twenty
lines make one without a dependency.
"""

from __future__ import annotations


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


def _pdf_string(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("ascii")
