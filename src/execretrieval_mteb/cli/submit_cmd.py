"""``execretrieval submit RESULTS_DIR -o OUT``: results on the official release, packaged for MTEB's
results repository and for this benchmark's static leaderboard (``leaderboard.submit``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .options import add_output, add_quiet

HELP = ("Package a results folder for MTEB's results repository (validated with mteb) and the static leaderboard "
        "(OUT/leaderboard/index.html); only results on the official release are accepted.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, metavar="RESULTS_DIR", help="a folder written by `execretrieval run`")
    add_output(parser, None, "the submission folder (several submissions can share one: the site collects their rows)")
    parser.add_argument("-m", "--model", dest="models", action="append", metavar="NAME",
                        help="submit only this model (mteb's model name, repeatable; default: every model in the folder)")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from ..leaderboard.submit import submit

    done = submit(args.results, args.output, set(args.models) if args.models else None)
    for result in () if args.quiet else done.mteb:
        print(f"mteb: {result.path.relative_to(done.out)} (dataset revision {result.dataset_revision}, "
              f"main score {result.main_score:.4f})")
    for row in () if args.quiet else done.rows:
        print(f"leaderboard row: {row.model} exec@1 {row.metrics.get('exec_at_1', float('nan')):.3f}"
              + (" with intervals" if row.intervals else ""))
    for note in done.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"site: {done.site} ({done.site_rows} models; open it in a browser, no server needed)")
    return 0
