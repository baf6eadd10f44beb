"""``execretrieval report DIR``: rewrite a results folder's leaderboard, statistics, analyses and figures.

With ``--reference FILE`` it also writes the folder's means as the reference results
(``results.reference``), and with ``--readme README.md`` regenerates the README's table from
them: ``execretrieval report ref --reference docs/reference_results.json --readme README.md``
after ``execretrieval run -o ref``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from .finish import add_finish_arguments, print_finished
from .options import add_data, check_writable

HELP = ("Rewrite the leaderboard, intervals, paired tests, analyses and figures of a results folder; "
        "optionally write its means as the reference results and the README's table.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR", help="a results folder (from run, evaluate or rescore)")
    add_data(parser)
    parser.add_argument("--reference", type=Path, default=None, metavar="FILE",
                        help="also write the folder's means as the reference results (docs/reference_results.json)")
    parser.add_argument("--readme", type=Path, default=None, metavar="FILE",
                        help="regenerate the reference table of FILE (README.md) from --reference")
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..results.reference import update_readme, write_reference
    from ..results.results_folder import ResultsFolder
    from ..mteb_task.data_source import load_built_source

    if args.readme is not None and args.reference is None:
        raise UsageError("--readme needs --reference FILE (the table is generated from that file)")
    if args.readme is not None and not args.readme.is_file():
        raise UsageError(f"--readme {args.readme}: no such file")
    if not args.folder.is_dir():
        raise UsageError(f"{args.folder}: no such results folder; give the -o folder of `execretrieval run` or `evaluate`")
    check_writable(args.folder, "DIR")
    folder = ResultsFolder(args.folder)
    dataset = load_built_source(args.data)
    finished = print_finished(folder, dataset, args)
    if args.reference is not None:
        payload = write_reference(args.reference, finished.rows, dataset)
        if not args.quiet:
            print(f"reference results: {args.reference} ({len(payload['models'])} models)", file=sys.stderr)
        if args.readme is not None:
            changed = update_readme(args.readme, payload)
            if not args.quiet:
                print(f"{args.readme}: reference table {'updated' if changed else 'already up to date'}",
                      file=sys.stderr)
    return 0
