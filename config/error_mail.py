"""Error mail to the admins, at most one per kind of error per window.

Django mails every server error as it happens: a visitor repeating one bad request (a hostile
header, a bad Host) or an outage sends the admins a mail per request. Here the first error of a
kind is mailed at once; repeats within the same ERROR_MAIL_WINDOW_SECONDS of the clock (10:00 to
10:10, then 10:10 to 10:20, ...) are only counted, and the next mail of that kind, in a later
window, says how many there were.

The claim and the count live in the shared cache (the database cache), so every worker and
server sends one mail between them. The claim is exact: one cache.add() per window wins (an
INSERT on the cache table's primary key). The count is a read and a write (the database cache
has no atomic increment), so two workers counting at the same instant may count one. When the
shared cache cannot be reached (the database is down: the flood this is for), each process
keeps its own claims and counts in memory.
"""

from __future__ import annotations

import hashlib
import logging
import time
import traceback
from copy import copy

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.utils.log import AdminEmailHandler

# How long an error kind's count waits for its next mail: a kind not seen again for a week
# starts afresh.
COUNT_SECONDS = 7 * 24 * 3600
# The clock the windows are read from (tests move it).
clock = time.time

# One process's claims and counts while the shared cache cannot be reached.
_local = LocMemCache("error-mail", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


def error_kind(record: logging.LogRecord) -> str:
    """What makes two errors the same: the exception's type and every line of its traceback
    (the same failure reached the same way, whatever the URL, values or message), or for a
    message without an exception, its logger, template and the line that logged it. A client
    can vary the request as it likes; it cannot make new kinds."""
    if record.exc_info and record.exc_info[0] is not None:
        kind, _, trace = record.exc_info
        parts = [kind.__module__, kind.__qualname__]
        for frame, line in traceback.walk_tb(trace):
            parts.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}:{line}")
    else:
        parts = [record.name, str(record.msg), record.pathname, str(record.lineno)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _claim(store: BaseCache, kind: str, window: int) -> int | None:
    """None when an error of this kind was mailed in the current window (this one is counted);
    else the number of errors of the kind not mailed since its last mail."""
    unmailed_key = f"error-mail:{kind}:unmailed"
    current = int(clock() // window)
    if not store.add(f"error-mail:{kind}:window:{current}", True, timeout=2 * window):
        unmailed = store.get(unmailed_key, 0) + 1
        store.set(unmailed_key, unmailed, timeout=max(COUNT_SECONDS, 2 * window))
        return None
    unmailed = store.get(unmailed_key, 0)
    if unmailed:
        store.delete(unmailed_key)
    return unmailed


def claim_mail(record: logging.LogRecord, window: int) -> int | None:
    """_claim() in the shared cache, or in this process's memory if the shared one fails."""
    kind = error_kind(record)
    try:
        return _claim(cache, kind, window)
    # Whatever the failure (database down, cache table missing, a broken transaction), a
    # logging handler must not raise: the mail is still limited, per process.
    except Exception:
        return _claim(_local, kind, window)


class ThrottledAdminEmailHandler(AdminEmailHandler):
    """Django's AdminEmailHandler, mailing each kind of error at most once per window."""

    def emit(self, record: logging.LogRecord) -> None:
        if not settings.ADMINS:  # nobody to mail: nothing to claim or count
            return
        window = settings.ERROR_MAIL_WINDOW_SECONDS
        unmailed = claim_mail(record, window)
        if unmailed is None:
            return
        record = copy(record)
        if unmailed:
            # First in the subject, which is cut at 989 characters.
            record.msg = f"[{unmailed} more not mailed] {record.msg}"
        record.mail_note = (
            f"{unmailed} more errors of this kind were not mailed since its last mail. "
            if unmailed
            else ""
        ) + (
            f"Errors of this kind are mailed at most once every {window} seconds; "
            "the next mail says how many were not."
        )
        super().emit(record)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        note = getattr(record, "mail_note", "")
        return f"{text}\n\n{note}" if note else text


def reset_local() -> None:
    """Forget this process's own claims and counts (tests)."""
    _local.clear()
