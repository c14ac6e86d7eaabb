"""Values two sources write differently that say the same thing: not a conflict, not a change.

- Text (titles, abstracts): the same once math is read as Unicode and whitespace collapsed
  (`S$Ω$I` from a Zotero BibTeX export and `S$\\Omega$I` from its RIS export; line breaks).
- PDF and forum links: the same OpenReview document in two URL shapes (`/pdf?id=FORUM` and
  the attachment `/pdf/<hash>.pdf` of that forum's paper), or one URL that differs only in
  its scheme or a trailing slash.
- DOIs: case (DOIs are case-insensitive).
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import parse_qs, urlsplit

from papers.latex import latex_to_plain_text

_OPENREVIEW_HOSTS = frozenset({"openreview.net", "www.openreview.net"})
# An OpenReview attachment: the PDF of a note, named by its content's hash.
_ATTACHMENT = re.compile(r"/pdf/[0-9a-f]{40}\.pdf")


def equivalent(field: str, current: str, incoming: str, forum_id: str = "") -> bool:
    """Whether `incoming` says what `current` says for the paper's `field`; `forum_id` is the
    paper's OpenReview forum, which an attachment link belongs to."""
    if current == incoming:
        return True
    if not current or not incoming:
        return False
    if field in ("title", "abstract"):
        return text_key(current) == text_key(incoming)
    if field in ("pdf_url", "forum_url"):
        return _link_key(current, forum_id) == _link_key(incoming, forum_id)
    if field == "doi":
        return current.casefold() == incoming.casefold()
    return False


def text_key(text: str) -> str:
    """Text as a reader sees it: math as Unicode where it has a form, whitespace collapsed."""
    if "$" in text or "\\" in text:
        text = latex_to_plain_text(text)
    return unicodedata.normalize("NFC", " ".join(text.split()))


def _link_key(url: str, forum_id: str) -> tuple[str, ...]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ("url", url)
    host, path = parts.netloc.lower(), parts.path.rstrip("/") or "/"
    if host in _OPENREVIEW_HOSTS:
        ids = parse_qs(parts.query).get("id", [])
        if path in ("/pdf", "/forum") and len(ids) == 1:
            return ("openreview", path, ids[0])
        if forum_id and _ATTACHMENT.fullmatch(path):
            return ("openreview", "/pdf", forum_id)
    return ("url", host, path, parts.query)
