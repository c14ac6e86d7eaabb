"""The scheduled sync of every connected library (manage.py sync_zotero), each claimed first:
two runs at once (two servers, or a run beside a curator's) pull each library once."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings

from operations.claims import ClaimLost, claim
from papers.sources.client import FetchClient, FetchError, service
from zotero.fetching import ZoteroReader
from zotero.models import Library
from zotero.pull import pull
from zotero.push import push

logger = logging.getLogger(__name__)


def lease() -> timedelta:
    """How long a run holds a library (settings.ZOTERO_SYNC_LEASE): a pull renews its claim as
    it goes (between its reads and its writes); the default, 30 minutes, outlasts any one step
    of a large library, and is how long a run killed half-way keeps the next one out."""
    return timedelta(seconds=settings.ZOTERO_SYNC_LEASE)


def sync_libraries(
    groups: list[int] | None = None, *, sleep: Callable[[float], None] = time.sleep
) -> tuple[list[str], int]:
    """Pull each enabled library (or those of `groups`): a line each, and how many failed."""
    libraries = Library.objects.filter(enabled=True)
    if groups:
        libraries = libraries.filter(group_id__in=groups)
    lines, failed = [], 0
    for library in libraries:
        held = claim(Library, library.pk, lease())
        if held is None:
            lines.append(f"{library}: held by another run, skipped")
            continue
        reader = ZoteroReader(
            library.group_id,
            held.row.key(),
            client=FetchClient(service("zotero"), sleep=sleep),
            sleep=sleep,
        )
        try:
            outcome = pull(held, reader)
            line = f"{library}: {outcome.summary()}"
            if settings.ZOTERO_PUSH:
                line += f"; {push(held, reader).summary()}"
        except ClaimLost:
            lines.append(f"{library}: taken over by another run; nothing recorded")
            failed += 1
        except FetchError as error:
            logger.warning("pulling %s: %s", library, error)
            held.release(last_outcome=f"failed: {error}"[:500])
            lines.append(f"{library}: failed: {error}")
            failed += 1
        else:
            held.release()
            lines.append(line)
        finally:
            reader.close()
    return lines, failed
