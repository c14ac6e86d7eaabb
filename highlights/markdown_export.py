""" "My notes and highlights" as Markdown: per paper, the member's notes, then their
highlights' quotes with page numbers and notes; a reading list is its papers in list order.
Plain text building; the rows are read through highlights.selectors.

The file is opened in Markdown viewers, some of which render raw HTML: titles, list names and
quotes are written to show as written (highlights.markdown_text), and the member's own notes
as their Markdown, with no raw HTML or autolink."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from annotations.models import Note
from highlights.markdown_text import (
    heading_literal,
    member_markdown,
    quoted_literal,
)
from highlights.models import Highlight
from highlights.selectors import own_highlights
from papers.latex import latex_to_plain_text
from papers.models import Paper

MEDIA_TYPE = "text/markdown; charset=utf-8"


def highlight_markdown(highlight: Highlight) -> str:
    where = f"page {highlight.page}"
    if highlight.orphaned:
        where += ", not found in the present PDF"
    shared = "shared with the lab" if highlight.is_shared else "private"
    parts = [quoted_literal(highlight.quote), f"— {where} ({shared})"]
    if highlight.note:
        parts.append(member_markdown(highlight.note))
    return "\n\n".join(parts)


def paper_section(
    paper: Paper,
    notes: Sequence[Note],
    highlights: Sequence[Highlight],
    *,
    url: str,
    level: int = 1,
) -> str:
    heading = "#" * level
    lines = [heading_literal(latex_to_plain_text(paper.display_title), level), "", f"<{url}>"]
    if notes:
        lines += ["", f"{heading}# Notes"]
        for note in notes:
            lines += ["", member_markdown(note.body.strip())]
    if highlights:
        lines += ["", f"{heading}# Highlights"]
        for highlight in highlights:
            lines += ["", highlight_markdown(highlight)]
    if not notes and not highlights:
        lines += ["", "No notes or highlights."]
    return "\n".join(lines) + "\n"


def papers_document(
    title: str,
    papers: Sequence[Paper],
    notes: dict[int, list[Note]],
    highlights: dict[int, list[Highlight]],
    *,
    url_of: Callable[[Paper], str],
) -> str:
    """A reading list's document: `title` (shown as written), then each paper as a
    second-level section."""
    sections = [heading_literal(title, 1) + "\n"]
    sections += [
        paper_section(
            paper,
            notes.get(paper.pk, []),
            highlights.get(paper.pk, []),
            url=url_of(paper),
            level=2,
        )
        for paper in papers
    ]
    return "\n".join(sections)


def highlight_line(highlight: Highlight) -> str:
    """One line for a BibTeX `note` or an RIS `N1`: "p. N: “quote” — note"."""
    line = f"p. {highlight.page}: “{highlight.quote}”"
    return f"{line} — {highlight.note}" if highlight.note else line


def notes_for_export(user, paper_ids) -> dict[int, list[str]]:
    """The member's own highlights on these papers as lines (annotations.export_notes calls
    this for an export with `notes=mine`): one query."""
    lines: dict[int, list[str]] = {}
    for highlight in own_highlights(user, paper_ids):
        lines.setdefault(highlight.paper_id, []).append(highlight_line(highlight))
    return lines
