"""``execretrieval rescore DIR [--check]``: everything ``run`` wrote, again, from DIR/embeddings/ and the dataset.

DIR needs only ``embeddings/`` (each model's run record and a dense model's frozen matrices, as a
release ships them): mteb's result files and predictions, the evaluation files, the leaderboard
and the analyses are recomputed without any model (``results.rescore``) and written into DIR.
With ``--check`` nothing is written: every file that would be written is compared with DIR's, the
differences are listed, and the exit status is 1 if there are any.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from .finish import add_finish_arguments
from .options import add_data, add_workers, check_writable

HELP = ("Rebuild everything `run` wrote (MTEB results, predictions, evaluations, leaderboard, analyses) from a "
        "folder's embeddings/ alone; --check compares instead of writing.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR",
                        help="a results folder of `execretrieval run`, or any folder holding its embeddings/")
    add_data(parser)
    add_workers(parser)
    parser.add_argument("--check", action="store_true",
                        help="write nothing: compare what rescoring gives with DIR's files and list the differences "
                             "(exit status 1 if any)")
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..results.leaderboard import format_table
    from ..results.rescore import differences, rescore_folder, write_rescored
    from ..results.results_folder import ResultsFolder

    if not args.folder.is_dir():
        raise UsageError(f"{args.folder}: no such results folder; give the -o folder of `execretrieval run` (or a "
                         "folder holding its embeddings/)")
    if not args.check:
        check_writable(args.folder, "DIR")
    folder = ResultsFolder(args.folder)
    rescored = rescore_folder(folder, args.data, workers=args.workers, progress=not args.quiet,
                              oracle_cache=None if args.check else folder.oracle_cache)
    if rescored.other_data and not args.quiet:
        print(f"({len(rescored.other_data)} model(s) in {folder.embeddings_dir} were run on other data; left out: "
              f"{', '.join(rescored.other_data)})", file=sys.stderr)
    if args.check:
        found = differences(folder, rescored)
        for line in found:
            print(line)
        summary = (f"rescore --check: {len(found)} of {len(rescored.files)} files differ from {folder.root}"
                   if found else f"rescore --check: all {len(rescored.files)} files of {len(rescored.models)} "
                                 f"model(s) are as recomputed")
        print(summary, file=sys.stderr)
        return 1 if found else 0
    changed = write_rescored(folder, rescored)
    print(format_table(rescored.finished.rows), end="")
    if not args.quiet:
        print(f"\nrescored {len(rescored.models)} model(s) into {folder.root}: {len(rescored.files)} files, "
              f"{len(changed)} changed", file=sys.stderr)
    return 0
