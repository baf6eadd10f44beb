"""``execretrieval wild build``: build the open task's wild corpus (otherwise built on first use).

By default from this environment into the folder the open task reads (``$EXECRETRIEVAL_WILD``, else
``~/.cache/execretrieval-mteb/wild/<key>``); ``--site-packages`` reads another environment's
distributions instead (e.g. a bigger one, for a bigger pool), ``--max-functions`` cuts a small pool.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_quiet, positive_int

HELP = "Build the open task's wild corpus: real top-level functions of the installed, permissively licensed code."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_quiet(parser)  # before or after the action, like -v
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="build the wild corpus (offline, deterministic)", description=HELP)
    build.add_argument("-o", "--output", type=Path, default=None,
                       help="corpus folder (default: the one the open task reads)")
    build.add_argument("--site-packages", type=Path, action="append", default=None, metavar="DIR",
                       help="read the distributions of this site-packages folder (repeatable; default: this environment's)")
    build.add_argument("--package", action="append", default=None, metavar="NAME",
                       help="only this source (repeatable; 'python-stdlib' is the standard library)")
    build.add_argument("--max-functions", type=positive_int, default=None, metavar="N",
                       help="stop after N functions (a small pool, e.g. for tests)")
    build.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars or progress lines")


def run(args: argparse.Namespace) -> int:
    from ..construction.wild.build import build_wild
    from ..construction.wild.store import default_wild_dir
    from ..dataset.bundled import BUNDLED_DATASET_DIR
    from ..dataset.io import load_dataset

    out = args.output or default_wild_dir()
    benchmark = load_dataset(BUNDLED_DATASET_DIR)
    built = build_wild(out, benchmark_codes=[c.code for c in benchmark.corpus], site_dirs=args.site_packages,
                       packages=args.package, max_functions=args.max_functions, progress=not args.quiet)
    used = sum(s.license is not None for s in built.sources)
    print(f"{out}: {built.functions:,} wild functions from {used} sources ({len(built.sources) - used} excluded by "
          f"licence), {built.bytes / 1e6:.1f} MB, built in {built.seconds:.1f} s")
    return 0

