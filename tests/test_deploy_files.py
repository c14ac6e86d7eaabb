"""The systemd units in deploy/systemd/ and the crontab in docs/operations.md are written from
one declaration (operations.schedule): these tests keep the committed copies equal to it."""

from __future__ import annotations

import configparser
import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command, get_commands, load_command_class

from operations.commands import ScheduledCommand
from operations.schedule import SCHEDULE, Deployment, crontab, systemd_units

ROOT = Path(__file__).resolve().parent.parent
UNITS_DIR = ROOT / "deploy" / "systemd"


def _parse(text: str) -> configparser.ConfigParser:
    # systemd repeats keys (ExecStartPre); strict=False keeps the parser from refusing them.
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def test_committed_units_are_the_ones_the_schedule_writes():
    expected = systemd_units(Deployment())
    committed = {path.name: path.read_text(encoding="utf-8") for path in UNITS_DIR.iterdir()}
    assert committed == expected, (
        "deploy/systemd/ differs from operations/schedule.py: run "
        "`manage.py deploy_files --systemd deploy/systemd`"
    )


def test_the_crontab_in_the_operations_guide_is_the_one_the_schedule_writes():
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```cron\n(.*?)```", guide, flags=re.DOTALL)
    assert blocks == [crontab(Deployment())], (
        "docs/operations.md's crontab differs from operations/schedule.py: paste "
        "`manage.py deploy_files --crontab`"
    )


def test_every_scheduled_line_names_a_command_that_parses_its_arguments():
    commands = get_commands()
    for line in SCHEDULE:
        name, *arguments = line.argv
        assert name in commands, name
        command = load_command_class(commands[name], name)
        command.create_parser("manage.py", name).parse_args(arguments)


def test_each_scheduled_line_has_a_timer_and_a_oneshot_service():
    units = systemd_units(Deployment())
    for line in SCHEDULE:
        timer = _parse(units[f"papers-{line.name}.timer"])
        hour = "*" if line.hour is None else f"{line.hour:02d}"
        assert timer["Timer"]["OnCalendar"] == f"*-*-* {hour}:{line.minute:02d}:00"
        service = _parse(units[f"papers-{line.name}.service"])
        assert service["Service"]["Type"] == "oneshot"
        assert service["Service"]["ExecStart"].endswith("manage.py " + " ".join(line.argv))


def test_the_jobs_that_must_run_once_claim_their_run():
    """Every host carries the same timers: a command that must not run twice (mail, fetches)
    claims its job in the database (operations.runs); the index catch-up runs on every host."""
    commands = get_commands()
    once = {
        "compute_recommendations",
        "embed_papers",
        "fetch_feeds",
        "fetch_pdfs",
        "send_digests",
        "send_group_reminders",
        "prune_exports",
        "sync_zotero",
    }
    for line in SCHEDULE:
        name = line.argv[0]
        command = load_command_class(commands[name], name)
        assert isinstance(command, ScheduledCommand) == (name in once), name


def test_group_reminders_run_every_hour_and_the_digests_once_a_day():
    """A line without an hour runs every hour at its minute, in the crontab and as a timer."""
    by_name = {line.name: line for line in SCHEDULE}
    assert (by_name["group-reminders"].hour, by_name["group-reminders"].minute) == (None, 5)
    cron = crontab(Deployment()).splitlines()
    [reminders] = [each for each in cron if "send_group_reminders" in each]
    [digests] = [each for each in cron if "send_digests" in each]
    assert reminders.startswith("5 * * * *  cd /srv/papers && ")
    assert digests.startswith("0 7 * * *  cd /srv/papers && ")
    units = systemd_units(Deployment())
    timer = _parse(units["papers-group-reminders.timer"])
    assert timer["Timer"]["OnCalendar"] == "*-*-* *:05:00"
    assert timer["Unit"]["Description"].endswith(", hourly")
    assert _parse(units["papers-digests.timer"])["Unit"]["Description"].endswith(", daily")
    service = _parse(units["papers-group-reminders.service"])
    assert service["Service"]["ExecStart"].endswith("manage.py send_group_reminders")


def test_web_servers_never_migrate_but_refuse_an_unmigrated_database():
    web = systemd_units(Deployment())["papers-web.service"]
    assert "migrate --check" in web
    assert "migrate --noinput" not in web
    migrate = _parse(systemd_units(Deployment())["papers-migrate.service"])
    assert migrate["Service"]["Type"] == "oneshot"


@pytest.mark.parametrize("app_dir", ["/opt/lab papers", "/srv/papers/"])
def test_the_command_writes_units_for_another_host_layout(tmp_path, app_dir):
    out = io.StringIO()
    call_command(
        "deploy_files",
        "--systemd",
        str(tmp_path),
        "--app-dir",
        app_dir,
        "--user",
        "lab",
        stdout=out,
    )
    worker = _parse((tmp_path / "papers-worker.service").read_text(encoding="utf-8"))
    assert worker["Service"]["User"] == "lab"
    assert worker["Service"]["WorkingDirectory"] == app_dir.rstrip("/")
    assert f"{len(systemd_units(Deployment()))} unit files written" in out.getvalue()


def test_the_command_prints_the_crontab():
    out = io.StringIO()
    call_command("deploy_files", "--crontab", "--app-dir", "/opt/papers", stdout=out)
    assert "cd /opt/papers && set -a" in out.getvalue()
    assert out.getvalue().count("manage.py") == len(SCHEDULE)
