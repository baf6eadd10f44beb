"""``execretrieval evaluate PRED [PRED ...]``: score saved MTEB predictions by execution.

Takes the ``ExecRetrieval_predictions.json`` files that ``mteb run -t ExecRetrieval -m MODEL
--prediction-folder P`` writes (on any machine), refuses any that does not join the dataset id
for id, checks each query's top k (cache, static proof, then the sandboxed oracle), and writes
exactly what ``execretrieval run`` writes into the results folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .finish import add_finish_arguments, print_finished
from .open_run import add_open_arguments
from .options import add_data, add_output, add_workers, check_writable

HELP = "Score MTEB predictions files (from `mteb run --prediction-folder`) by execution and update the leaderboard."
DEFAULT_OUTPUT = Path("execretrieval-results")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("predictions", nargs="+", type=Path, metavar="PRED",
                        help="an ExecRetrieval_predictions.json, or a folder holding one "
                             "(with --open: ExecRetrievalOpen_predictions.json)")
    add_data(parser)
    add_output(parser, DEFAULT_OUTPUT)
    add_workers(parser)
    add_open_arguments(parser)
    add_finish_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..results.outputs import write_evaluation
    from ..results.predictions import evaluate_prediction_files
    from ..results.results_folder import PREDICTIONS_FILE, ResultsFolder
    from ..mteb_task.data_source import load_built_source

    check_writable(args.output, "-o")
    if args.open:  # ExecRetrievalOpen predictions: scored on the open pool, into <output>/open/
        from .open_run import evaluate_open

        return evaluate_open(args.predictions, args, ResultsFolder(args.output))
    dataset = load_built_source(args.data)
    folder = ResultsFolder(args.output)
    paths = [p / PREDICTIONS_FILE if p.is_dir() else p for p in args.predictions]
    evaluations = evaluate_prediction_files(paths, dataset, workers=args.workers, progress=not args.quiet,
                                            oracle_cache=folder.oracle_cache)  # every file is checked first
    for path, evaluation in zip(paths, evaluations):
        written = write_evaluation(folder, evaluation, dataset)
        if not args.quiet:
            counts = ", ".join(f"{n} {s.value}" for s, n in evaluation.checked.counts().items() if n)
            print(f"{path}: {evaluation.report.model.name} -> {written} ({counts})", file=sys.stderr)
    print_finished(folder, dataset, args)
    return 0
