"""Command-line arguments the PDF commands share."""

from __future__ import annotations

from argparse import ArgumentParser


def add_paper_ids_argument(parser: ArgumentParser, help_text: str) -> None:
    """`--paper ID`, repeatable, into `paper_ids` (an empty list when not given)."""
    parser.add_argument(
        "--paper",
        type=int,
        action="append",
        default=[],
        dest="paper_ids",
        metavar="ID",
        help=help_text,
    )
