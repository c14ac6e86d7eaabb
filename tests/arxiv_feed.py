"""Atom pages as arXiv's API writes them (API User's Manual 3.3), for the arXiv fetch tests."""

from __future__ import annotations

from datetime import date, timedelta

NAMESPACES = (
    'xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"'
)


def atom_entry(
    arxiv_id: str = "2402.00001",
    version: int = 1,
    *,
    published: str = "2024-02-01T10:00:00Z",
    updated: str | None = None,
    title: str = "A title",
    summary: str = "An abstract.",
    authors: tuple[str, ...] = ("Ann One",),
    extra: str = "",
) -> str:
    """One <entry> as arXiv writes it; `extra` holds the optional arxiv: elements."""
    names = "".join(f"\n    <author>\n      <name>{name}</name>\n    </author>" for name in authors)
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{arxiv_id}v{version}</id>\n"
        f"    <updated>{updated or published}</updated>\n"
        f"    <published>{published}</published>\n"
        f"    <title>{title}</title>\n"
        f"    <summary>{summary}</summary>{names}\n"
        f'    <link href="http://arxiv.org/abs/{arxiv_id}v{version}" rel="alternate" '
        'type="text/html"/>\n'
        f'    <link title="pdf" href="http://arxiv.org/pdf/{arxiv_id}v{version}" rel="related" '
        'type="application/pdf"/>\n'
        '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
        '    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
        f"{extra}"
        "  </entry>\n"
    )


def feed(entries: list[str], *, total: int | None, start: int = 0) -> str:
    counts = (
        f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
        f"  <opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>\n"
        if total is not None
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<feed {NAMESPACES}>\n"
        '  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>\n'
        "  <title>ArXiv Query: search_query=cat:cs.LG</title>\n"
        "  <id>http://arxiv.org/api/cHxbiOdZaP56ODnBPIenZhzg5f8</id>\n"
        "  <updated>2024-03-01T00:00:00-05:00</updated>\n"
        f"{counts}{''.join(entries)}</feed>\n"
    )


def numbered(count: int, *, first_day: date = date(2024, 3, 1)) -> list[str]:
    """`count` entries newest first, one a day back from `first_day`, ids 2403.00000 on."""
    return [
        atom_entry(
            f"2403.{n:05d}",
            published=f"{first_day - timedelta(days=n)}T12:00:00Z",
            summary=f"Abstract {n}.",
        )
        for n in range(count)
    ]
