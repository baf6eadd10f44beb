"""The end shared by ``run``, ``evaluate``, ``rescore`` and ``report``: leaderboard, analyses, summary."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import ExecRetrievalError
from .options import add_quiet

if TYPE_CHECKING:
    from ..dataset.io import BuiltDataset
    from ..results.outputs import Finished
    from ..results.results_folder import ResultsFolder


def add_finish_arguments(parser: argparse.ArgumentParser) -> None:
    add_quiet(parser)


def print_finished(folder: ResultsFolder, dataset: BuiltDataset, args: argparse.Namespace) -> Finished:
    """Write the leaderboard and analyses over the folder's models on this dataset; print the table."""
    from ..results.leaderboard import format_table
    from ..results.outputs import finish

    finished = finish(folder, dataset)
    if not finished.rows:
        raise ExecRetrievalError(f"{folder.root}/evaluation: no results for this dataset; run or evaluate a model first")
    print(format_table(finished.rows), end="")
    if not args.quiet:
        if finished.skipped:
            print(f"({len(finished.skipped)} evaluation file(s) in {folder.root}/evaluation are for other data; left out)",
                  file=sys.stderr)
        print(f"\nleaderboard: {folder.leaderboard}; per-query results: {folder.root / 'evaluation'}/", file=sys.stderr)
    return finished
