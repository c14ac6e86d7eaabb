"""Fail when pyproject.toml names a dependency that a lock file does not pin.

The Makefile installs from the lock files, not from pyproject.toml, so a dependency added to
pyproject.toml without `make lock` would be silently missing from the environment. Usage:

    python requirements/check_lock.py requirements/runtime.txt [--extra dev]
"""

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A requirement's name ends where its extras, version, marker or URL begin (PEP 508).
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    """PEP 503 normalised name: django_stubs, Django-Stubs and django.stubs are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(extra: str | None) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    if extra:
        requirements += project["optional-dependencies"][extra]
    return {canonical(m.group(1)) for r in requirements if (m := NAME.match(r))}


def pinned(lock: Path) -> set[str]:
    return {
        canonical(line.split("==", 1)[0])
        for line in lock.read_text().splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lock", type=Path)
    parser.add_argument("--extra")
    args = parser.parse_args()
    missing = sorted(declared(args.extra) - pinned(args.lock))
    if missing:
        print(
            f"{args.lock} does not pin {', '.join(missing)} from pyproject.toml: run `make lock`",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
