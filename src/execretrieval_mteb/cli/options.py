"""Options shared by subcommands: one spelling and one meaning for the same thing everywhere.

- ``--data DIR|bundled|hub``: which dataset (a directory made by ``execretrieval build``, an
  unpacked original release, the bundled one, or the pinned Hub release);
- ``-o/--output``: where results go;
- ``--workers N``: oracle worker processes, a positive integer;
- ``--quiet``: no progress bars or progress lines.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1 (argparse turns the ValueError into a one-line usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_data(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    parser.add_argument(
        "--data", default=default, metavar="DIR|bundled|hub",
        help="dataset: 'bundled' (default, offline), 'hub' (the pinned release), or a directory made by "
             "`execretrieval build` or an unpacked original release",
    )


def add_output(parser: argparse.ArgumentParser, default: Path | None, what: str = "where results go") -> None:
    suffix = f" (default: {default})" if default is not None else ""
    parser.add_argument("-o", "--output", type=Path, default=default, required=default is None, help=what + suffix)


def add_workers(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=positive_int, default=None, metavar="N",
        help="oracle worker processes (default: one per CPU)",
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress bars or progress lines")
