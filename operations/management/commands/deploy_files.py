"""Write the systemd units (or print the crontab) of operations.schedule for a host."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from operations.schedule import Deployment, crontab, systemd_units


class Command(BaseCommand):
    help = (
        "Write the site's systemd units (web server, task worker, migrations, one timer per "
        "scheduled command) into a directory, or print the same schedule as a crontab."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = Deployment()
        parser.add_argument("--app-dir", default=defaults.app_dir, help="the checkout on the host")
        parser.add_argument("--user", default=defaults.user, help="the user the app runs as")
        parser.add_argument("--log-dir", default=defaults.log_dir, help="cron's log files")
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--systemd", metavar="DIR", help="write the unit files into DIR")
        target.add_argument("--crontab", action="store_true", help="print the crontab")

    def handle(self, *args, **options) -> None:
        deployment = Deployment(
            app_dir=options["app_dir"].rstrip("/"), user=options["user"], log_dir=options["log_dir"]
        )
        if options["crontab"]:
            self.stdout.write(crontab(deployment), ending="")
            return
        directory = Path(options["systemd"])
        directory.mkdir(parents=True, exist_ok=True)
        units = systemd_units(deployment)
        for name, text in units.items():
            (directory / name).write_text(text, encoding="utf-8")
        self.stdout.write(f"{len(units)} unit files written to {directory}.")
