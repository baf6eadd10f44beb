"""Options shared by subcommands: one spelling and one meaning for the same thing everywhere.

- ``--data DIR|bundled|hub``: which dataset (a directory made by ``execretrieval build``, an
  unpacked original release, the bundled one, or the pinned Hub release);
- ``-o/--output``: where results go;
- ``--workers N``: oracle worker processes, a positive integer;
- ``--quiet``: no progress bars or progress lines.

Old spellings stay accepted as deprecated aliases (``add_deprecated_alias``): hidden from the help,
they work as before and print a one-line note naming the new spelling.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError


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


class _DeprecatedAlias(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, replacement: str = "", **kwargs: Any) -> None:
        self.replacement = replacement
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog}: note: {option_string} is deprecated; use {self.replacement}", file=sys.stderr)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def add_deprecated_alias(parser: argparse.ArgumentParser, old: str, replacement: str, dest: str,
                         *, flag: bool = False, **kwargs: Any) -> None:
    """Accept ``old`` as a hidden, deprecated spelling of the option stored in ``dest``."""
    if flag:
        kwargs.update(nargs=0, const=True)
    parser.add_argument(old, dest=dest, action=_DeprecatedAlias, replacement=replacement,
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)


def check_writable(path: Path, option: str) -> None:
    """``UsageError`` (one line) unless ``path`` is a writable folder or can be created as one; creates nothing."""
    target = Path(path).expanduser()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} {path}: is a file, not a folder; choose a folder with {option} DIR")
    probe = target
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"{option} {path}: {probe} is not a folder; choose a writable folder with {option} DIR")
    if os.access(probe, os.W_OK | os.X_OK):
        return
    try:
        read_only = bool(os.statvfs(probe).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    reason = "read-only file system" if read_only else "permission denied"
    raise UsageError(f"{option} {path}: cannot write to {probe} ({reason}); choose a writable folder with {option} DIR")
