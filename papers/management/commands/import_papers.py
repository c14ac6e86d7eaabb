"""manage.py import_papers PATH [PATH ...] [--format ...] [--dry-run]"""

from __future__ import annotations

import argparse
import getpass

from django.core.management.base import BaseCommand, CommandError

from papers.importing.formats import READERS
from papers.importing.pipeline import ImportErrors, import_paths
from papers.importing.report import ProgressBar
from papers.models import MAX_SOURCE_NAME


class Command(BaseCommand):
    help = (
        "Import papers from dataset-viewer table dumps, abstract-only lists, JSON lines or CSV. "
        "Every file is validated before anything is written; the load is one transaction."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", metavar="PATH", help="regular file or directory of them"
        )
        parser.add_argument(
            "--format", choices=sorted(READERS), help="skip detection and read every file so"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, write nothing"
        )
        parser.add_argument(
            "--source",
            type=_source_name,
            help="name of the source these files come from (default: each file's name); a "
            "re-import changes only what its source changed since that source's last import",
        )

    def handle(self, *args, paths, format, dry_run, source, **options):
        # The bar redraws one line in place: no newline after each write, nor error colours.
        ending, style = self.stderr.ending, self.stderr.style_func
        self.stderr.ending, self.stderr.style_func = "", None
        progress = ProgressBar(self.stderr)
        try:
            report = import_paths(
                paths,
                format=format,
                dry_run=dry_run,
                progress=progress,
                invoked_by=f"manage.py import_papers ({_login_name()})",
                source=source,
            )
        except ImportErrors as errors:
            raise CommandError(f"{errors}\nNothing was imported.") from None
        finally:
            self.stderr.ending, self.stderr.style_func = ending, style
        for line in report.lines():
            self.stdout.write(line)


def _source_name(value: str) -> str:
    name = " ".join(value.split())
    if not name or len(name) > MAX_SOURCE_NAME:
        raise argparse.ArgumentTypeError(f"a source name of 1 to {MAX_SOURCE_NAME} characters")
    return name


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # a container's user may have neither a login name nor an entry
        return "unknown user"
