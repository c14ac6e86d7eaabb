"""Put likely duplicate papers in the curation queue, where a curator can merge them."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.template.defaultfilters import pluralize

from papers.duplicates import flag_duplicate_papers


class Command(BaseCommand):
    help = (
        "Flag papers whose titles are equal once case, punctuation and spacing are ignored, or "
        "whose abstracts open or end with the same 30 words or share passages, as needing "
        "curation ('possible duplicate of #<id>'), for the admin's 'Merge selected papers into "
        "one' action. Every import flags the duplicates of its own papers; this sweeps all."
    )

    def handle(self, *args, **options):
        count = flag_duplicate_papers()
        flagged = f"Flagged {count} paper{pluralize(count)} as possible duplicates."
        self.stdout.write(self.style.SUCCESS(flagged))
