"""The site's processes and scheduled commands, declared once.

The crontab in docs/operations.md and the systemd units in deploy/systemd/ are both written
from these declarations (`manage.py deploy_files`), and a test keeps the committed copies equal
to what this module writes, so the schedule has one home: change it here, regenerate both.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

# The environment glibc reads when a process starts (too early for settings): its malloc asks
# the kernel for 2 MB pages for its large blocks (transparent huge pages in "madvise" mode,
# Linux's usual default). A question's embedding reads all of the model's weights (85 MB for
# the default model): on 2 MB pages its p95 fell from 14.7-14.9 to 12.4-13.0 ms
# (docs/semantic.md). Every systemd unit's process starts with it (the web server embeds
# questions, the workers and embed_papers embed papers); the Makefile's `serve`, `worker` and
# `run` set the same (tests/test_makefile.py checks). A cron line may add it; it changes only
# how fast.
PROCESS_ENVIRONMENT = "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"


@dataclass(frozen=True)
class ScheduledLine:
    """A management command run at a fixed time of day, or every hour at a fixed minute
    (`hour` None), on every app server (the commands that must run once claim their job
    first: operations.runs)."""

    name: str  # the systemd unit's and the log file's name
    argv: tuple[str, ...]  # manage.py's arguments
    hour: int | None  # None: every hour
    minute: int
    description: str

    @property
    def cadence(self) -> str:
        return "hourly" if self.hour is None else "daily"

    @property
    def cron_time(self) -> str:
        """The crontab's minute and hour fields."""
        return f"{self.minute} {'*' if self.hour is None else self.hour}"

    @property
    def on_calendar(self) -> str:
        """The systemd timer's OnCalendar= value."""
        hour = "*" if self.hour is None else f"{self.hour:02d}"
        return f"*-*-* {hour}:{self.minute:02d}:00"


# Times in the server's local time (hour None: every hour at that minute). Feeds are fetched
# before the PDFs of what they brought and before the digests that mail it; index pruning runs
# after the night's recommendations.
SCHEDULE: tuple[ScheduledLine, ...] = (
    ScheduledLine(
        "recommendations",
        ("compute_recommendations",),
        3,
        15,
        "recommended papers for every member",
    ),
    ScheduledLine(
        "index",
        ("update_search_index", "--prune-days", "30"),
        4,
        30,
        "catch the search index up and delete old change records",
    ),
    ScheduledLine("exports", ("prune_exports",), 4, 45, "delete prepared exports past their days"),
    ScheduledLine(
        "tasks",
        ("prune_db_task_results", "--min-age-days", "7"),
        4,
        50,
        "delete finished background task rows",
    ),
    ScheduledLine(
        "zotero",
        ("sync_zotero",),
        6,
        20,
        "pull what changed in the connected Zotero group libraries",
    ),
    ScheduledLine("feeds", ("fetch_feeds",), 6, 30, "fetch the feeds that are due"),
    ScheduledLine(
        "embeddings",
        ("embed_papers", "--skip-if-off"),
        6,
        40,
        "embed the papers imported since (search by meaning; nothing without its extra)",
    ),
    ScheduledLine(
        "pdfs",
        ("fetch_pdfs", "--limit", "5000"),
        6,
        45,
        "fetch the PDFs of papers that have a link and no stored file",
    ),
    ScheduledLine("digests", ("send_digests",), 7, 0, "the daily e-mail of saved searches"),
    # Hourly: a session is announced by the first run within GROUP_REMINDER_HOURS of its start.
    ScheduledLine(
        "group-reminders",
        ("send_group_reminders",),
        None,
        5,
        "e-mail reading group members before their sessions",
    ),
)


@dataclass(frozen=True)
class Deployment:
    """Where the app lives on a host and whom it runs as."""

    app_dir: str = "/srv/papers"
    user: str = "papers"
    log_dir: str = "/var/log/papers"

    @property
    def python(self) -> str:
        return f"{self.app_dir}/.venv/bin/python"

    @property
    def env_file(self) -> str:
        return f"{self.app_dir}/.env"


def crontab(deployment: Deployment) -> str:
    """The crontab lines (as the app's user): each loads the app's environment first, since
    cron passes none of it."""
    lines = ["# m h dom mon dow  command (as the app's user)"]
    for line in SCHEDULE:
        command = " ".join(shlex.quote(arg) for arg in line.argv)
        lines.append(
            f"{line.cron_time} * * *  cd {deployment.app_dir} && set -a && "
            f". ./.env && set +a && .venv/bin/python manage.py {command} "
            f">> {deployment.log_dir}/{line.name}.log 2>&1"
        )
    return "\n".join(lines) + "\n"


def _unit(sections: list[tuple[str, list[str]]]) -> str:
    blocks = []
    for title, entries in sections:
        blocks.append("\n".join([f"[{title}]", *entries]))
    return "\n\n".join(blocks) + "\n"


def _service(deployment: Deployment, description: str, service: list[str]) -> str:
    # A oneshot service is started by its timer or by hand, never at boot.
    install = [] if "Type=oneshot" in service else [("Install", ["WantedBy=multi-user.target"])]
    return _unit(
        [
            (
                "Unit",
                [
                    f"Description=Paper browser: {description}",
                    "After=network-online.target postgresql.service",
                    "Wants=network-online.target",
                ],
            ),
            (
                "Service",
                [
                    f"User={deployment.user}",
                    f"WorkingDirectory={deployment.app_dir}",
                    f"EnvironmentFile={deployment.env_file}",
                    f"Environment={PROCESS_ENVIRONMENT}",
                    *service,
                ],
            ),
            *install,
        ]
    )


def systemd_units(deployment: Deployment) -> dict[str, str]:
    """Unit file name -> text: the web server and the task worker on every host, the
    migration run once per deploy, and a service and timer per scheduled command."""
    manage = f"{deployment.python} manage.py"
    units = {
        "papers-web.service": _service(
            deployment,
            "web server (gunicorn)",
            [
                # Migrations run once per deploy (papers-migrate), never per server start: a
                # host started before them refuses to serve an older schema.
                f"ExecStartPre={manage} migrate --check",
                f"ExecStartPre={manage} collectstatic --noinput",
                f"ExecStartPre={manage} update_search_index",
                # Prints "off" and returns at once without the semantic extra.
                f"ExecStartPre={manage} update_vector_index",
                f"ExecStart={deployment.app_dir}/.venv/bin/gunicorn -c config/gunicorn.conf.py "
                "config.wsgi",
                "ExecReload=/bin/kill -HUP $MAINPID",
                "Restart=always",
                # Building a missing index of a large catalogue takes a while before gunicorn.
                "TimeoutStartSec=900",
            ],
        ),
        "papers-worker.service": _service(
            deployment,
            "background task worker (default queue: members' work first)",
            [
                f"ExecStart={manage} task_worker --queue-name default --no-startup-delay",
                "Restart=always",
                "Nice=5",
            ],
        ),
        # Its own process: a feed's PDF run never holds the default queue's worker.
        "papers-worker-bulk.service": _service(
            deployment,
            "background task worker (bulk queue: feeds' PDF runs)",
            [
                f"ExecStart={manage} task_worker --queue-name bulk --no-startup-delay",
                "Restart=always",
                "Nice=10",
            ],
        ),
        "papers-migrate.service": _service(
            deployment,
            "database migrations (once per deploy, from one host)",
            [
                "Type=oneshot",
                # The cache table too (operations/apps.py): migrate alone leaves a working site.
                f"ExecStart={manage} migrate --noinput",
            ],
        ),
    }
    for line in SCHEDULE:
        command = " ".join(shlex.quote(arg) for arg in line.argv)
        units[f"papers-{line.name}.service"] = _service(
            deployment,
            line.description,
            ["Type=oneshot", "Nice=5", f"ExecStart={manage} {command}"],
        )
        units[f"papers-{line.name}.timer"] = _unit(
            [
                ("Unit", [f"Description=Paper browser: {line.description}, {line.cadence}"]),
                (
                    "Timer",
                    [
                        f"OnCalendar={line.on_calendar}",
                        # A host that was down at the time runs the job when it is back.
                        "Persistent=true",
                    ],
                ),
                ("Install", ["WantedBy=timers.target"]),
            ]
        )
    return units
