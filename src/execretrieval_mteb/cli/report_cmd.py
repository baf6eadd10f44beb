"""``execretrieval report DIR``: rewrite a results folder's leaderboard, statistics, analyses and figures."""

from __future__ import annotations

import argparse
from pathlib import Path

from .finish import add_finish_arguments, print_finished
from .options import add_data

HELP = "Rewrite the leaderboard, intervals, paired tests, analyses and figures of a results folder."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR", help="a results folder (from run, evaluate or rescore)")
    add_data(parser)
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..evaluation.results_folder import ResultsFolder
    from ..mteb_task.data_source import load_built_source

    print_finished(ResultsFolder(args.folder), load_built_source(args.data), args)
    return 0
