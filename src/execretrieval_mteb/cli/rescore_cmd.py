"""``execretrieval rescore DIR``: rebuild every ranking, metric and analysis from frozen matrices.

Dense models are rescored from ``embeddings/<model>.npz`` (scores recomputed exactly as in the
run), BM25 by recomputing its scores (deterministic). The evaluation files, leaderboard and
analyses are rewritten, byte-identical to the run that produced the matrices.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from .finish import add_finish_arguments, print_finished
from .options import add_data, add_workers, check_writable

HELP = "Rebuild every ranking, metric, interval and analysis of a results folder from its frozen embeddings."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR", help="a results folder written by `execretrieval run`")
    add_data(parser)
    add_workers(parser)
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..results.outputs import write_evaluation
    from ..results.rescore import rescore_folder
    from ..results.results_folder import ResultsFolder
    from ..mteb_task.data_source import load_built_source

    if not args.folder.is_dir():
        raise UsageError(f"{args.folder}: no such results folder; give the -o folder of `execretrieval run` or `evaluate`")
    check_writable(args.folder, "DIR")
    dataset = load_built_source(args.data)
    folder = ResultsFolder(args.folder)
    for evaluation in rescore_folder(folder, dataset, workers=args.workers, progress=not args.quiet):
        path = write_evaluation(folder, evaluation, dataset)
        if not args.quiet:
            print(f"rescored {evaluation.report.model.name} -> {path}", file=sys.stderr)
    print_finished(folder, dataset, args)
    return 0
