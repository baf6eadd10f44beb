"""``execretrieval build``: authored tasks -> verified mutants -> gated, checksummed dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from .options import add_deprecated_alias, add_quiet, add_workers

HELP = "Build the dataset from tasks/<domain>/<function_name>.toml (mutants, gates, sweeps, SHA256SUMS)."
DEFAULT_OUT = Path("build/execretrieval")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tasks",
        type=Path,
        default=Path("tasks"),
        help="folder of <domain>/<function_name>.toml files (default: tasks)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=DEFAULT_OUT,
        help=f"output folder, replaced atomically (default: {DEFAULT_OUT})",
    )
    add_deprecated_alias(parser, "--out", "-o/--output", "output", type=Path)
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for candidate sampling, tie-breaks and id order (default: 0)"
    )
    parser.add_argument(
        "--candidates-per-type",
        type=int,
        default=None,
        metavar="N",
        help="usable candidates of each bug type per task compared with the canonical on the generated inputs "
        "up front; the rest only where the selection needs them; 0 compares all (default: 1)",
    )
    add_workers(parser)
    parser.add_argument(
        "--oracle-cache",
        type=Path,
        default=None,
        metavar="FILE",
        help="reuse the oracle's verdict cache for candidate and agreement runs (speeds up rebuilds; the sweeps always re-run)",
    )
    add_quiet(parser)


def run(args: argparse.Namespace) -> int:
    from ..construction.builder import DEFAULT_CANDIDATES_PER_TYPE, BuildOptions, build

    if args.candidates_per_type is None:
        args.candidates_per_type = DEFAULT_CANDIDATES_PER_TYPE
    if args.candidates_per_type < 0:
        raise UsageError(f"--candidates-per-type must be >= 0, got {args.candidates_per_type}")

    def log(message: str) -> None:
        if not args.quiet:
            print(f"build: {message}", file=sys.stderr)

    options = BuildOptions(
        tasks_dir=args.tasks,
        out_dir=args.output,
        seed=args.seed,
        candidates_per_type=args.candidates_per_type,
        workers=args.workers,
        progress=not args.quiet,
        oracle_cache=args.oracle_cache,
    )
    result = build(options, log=log)
    report = result.report
    counts = report["counts"]
    print(result.table, end="")
    print(
        f"\n{counts['queries']} queries, {counts['snippets']} snippets, {counts['excluded_tasks']} task(s) excluded "
        f"(see {result.out_dir / 'build_report.json'}); wrote {result.out_dir}"
    )
    for exclusion in report["exclusions"][:10]:
        print(f"  excluded {exclusion['task']} [{exclusion['gate']}]: {exclusion['reasons'][0]}")
    if len(report["exclusions"]) > 10:
        print(f"  ... and {len(report['exclusions']) - 10} more")
    return 0
