"""A fake of OpenReview's /notes endpoint for the fetch tests: notes written in the documented
API v2 shape (values wrapped in {"value": ...}, `invitations`, `details.replies`), served by
query and paged with offset/limit as the real API pages them, answering `{"notes", "count"}`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VENUE = "ICLR.cc/2025/Conference"


def v2_note(
    note_id: str,
    title: str = "A Paper",
    *,
    number: int = 1,
    replies: list[dict] | None = None,
    **content: Any,
) -> dict:
    values = {
        "title": title,
        "authors": ["Ann One", "Bo Two"],
        "authorids": ["~Ann_One1", "~Bo_Two1"],
        "abstract": f"The abstract of {note_id}.",
        "venue": "ICLR 2025 Poster",
        "venueid": VENUE,
        "pdf": f"/pdf/{note_id}.pdf",
        **content,
    }
    return {
        "id": note_id,
        "forum": note_id,
        "number": number,
        "invitations": [f"{VENUE}/-/Submission", f"{VENUE}/-/Post_Submission"],
        "cdate": 1727740800000,
        "pdate": 1737590400000,
        "content": {name: {"value": value} for name, value in values.items() if value is not None},
        "details": {"replies": replies or []},
    }


def v2_reply(note_id: str, forum: str, kind: str, number: int = 1, **content: Any) -> dict:
    return {
        "id": note_id,
        "forum": forum,
        "replyto": forum,
        "invitations": [f"{VENUE}/Submission{number}/-/{kind}"],
        "cdate": 1731000000000,
        "content": {name: {"value": value} for name, value in content.items()},
    }


def v1_note(note_id: str, title: str, replies: list[dict] | None = None) -> dict:
    return {
        "id": note_id,
        "forum": note_id,
        "invitation": "ICLR.cc/2019/Conference/-/Blind_Submission",
        "content": {
            "title": title,
            "authors": ["Grace Hopper"],
            "abstract": f"The abstract of {note_id}.",
            "venue": "ICLR 2019 Poster",
        },
        "details": {"replies": replies or []},
    }


def page(queries: Mapping[tuple[str, str], list[dict]], params: Mapping[str, str]) -> dict:
    """The answer to one /notes request: the notes of the query its parameters name (by
    content.venueid or invitation), from `offset`, at most `limit`."""
    notes = next(
        (notes for (name, value), notes in queries.items() if params.get(name) == value), []
    )
    offset = int(params.get("offset", 0))
    limit = int(params.get("limit", 1000))
    return {"notes": notes[offset : offset + limit], "count": len(notes)}
