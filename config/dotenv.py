"""The project directory's `.env`: `NAME=value` lines that settings read before anything else,
so `.venv/bin/python manage.py ...` in a fresh shell runs with what `make run` ran with.

A variable already set in the environment wins over the file. The format is what systemd's
`EnvironmentFile` and a shell's `set -a; . ./.env` read alike (production's `/srv/papers/.env`,
docs/operations.md): blank lines, `#` comment lines, `NAME=value` with an optional `export ` in
front and the value optionally in matching single or double quotes (no escapes, no comment
after a value). Any other line stops settings with the file and line.

`make run` writes a development file once (`python -m config.dotenv write .env SITE_URL=...`):
debug on, a generated secret key, the address it serves on. It never replaces a file that
exists: delete it for a new one.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse(text: str, source: str = ".env") -> dict[str, str]:
    """The variables of a file's text, in order; ImproperlyConfigured names a bad line."""
    variables: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.removeprefix("export ").partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not _NAME.fullmatch(name):
            raise ImproperlyConfigured(f"{source}:{number}: expected NAME=value, got {line!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        variables[name] = value
    return variables


def load(path: Path) -> None:
    """Set each variable of the file at `path` that the environment does not set already;
    nothing when there is no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    for name, value in parse(text, str(path)).items():
        os.environ.setdefault(name, value)


def development_text(site_url: str) -> str:
    return (
        "# Written once by `make run` (config/dotenv.py) for development: settings and every\n"
        "# `.venv/bin/python manage.py ...` read it; a variable set in the environment wins.\n"
        "# A production host writes its own (docs/operations.md), with debug off.\n"
        "DJANGO_DEBUG=1\n"
        f"DJANGO_SECRET_KEY={secrets.token_urlsafe(50)}\n"
        f"SITE_URL={site_url}\n"
    )


def write_development_file(path: Path, site_url: str) -> bool:
    """Write the development file at `path` unless one exists; True when written. Readable by
    its owner only: it holds a secret key."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(development_text(site_url))
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] != "write" or not argv[2].startswith("SITE_URL="):
        print(
            "usage: python -m config.dotenv write PATH SITE_URL=http://host:port", file=sys.stderr
        )
        return 2
    path = Path(argv[1])
    if write_development_file(path, argv[2].removeprefix("SITE_URL=")):
        print(f"Wrote {path} (debug on, a new secret key): settings read it from now on.")
    else:
        print(f"{path} exists: kept as it is.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
