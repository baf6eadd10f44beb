"""``execretrieval contrib -o OUT [--results RESULTS_DIR]``: the files of the mteb pull request that adds
the task, and of the results-repository pull request (``hub.contribution``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_data, add_output, add_quiet

HELP = ("Write the files of an mteb pull request adding ExecRetrieval (task module pinned to the release, its "
        "registration, descriptive statistics) and, with --results, of a results-repository pull request.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_output(parser, None, "the folder to write (OUT/mteb: onto an mteb checkout; OUT/results: onto the results repository)")
    add_data(parser)
    parser.add_argument("--results", type=Path, metavar="RESULTS_DIR",
                        help="also package the mteb results of this folder (written by `execretrieval run` on the pinned release)")
    parser.add_argument("-m", "--model", dest="models", action="append", metavar="NAME",
                        help="with --results: only this model (mteb's model name, repeatable)")
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from ..hub.contribution import PATCH, write_contribution

    done = write_contribution(args.output, args.data, args.results, set(args.models) if args.models else None)
    if not args.quiet:
        for name in done.files:
            print(f"mteb pull request: {done.mteb / name}")
        for path in done.results:
            print(f"results pull request: {path}")
    print(f"apply with: cp -r {done.mteb}/mteb MTEB_CHECKOUT/ && git -C MTEB_CHECKOUT apply {(done.mteb / PATCH).resolve()}")
    return 0
