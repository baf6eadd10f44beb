"""``execretrieval validate [--data DIR]``: re-run the gates and sweeps on a built dataset (ours or the original release).

``--data`` names the dataset as everywhere else (default: the bundled one); the older positional
``validate DIR`` still works.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ..errors import UsageError
from .options import add_data, add_quiet, add_workers

HELP = "Re-run the five gates, both sweeps and the checksums on a built dataset; exit 1 if anything fails."
SHOWN_FINDINGS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_data(parser)
    parser.add_argument("dir", type=Path, nargs="?", default=None, metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-exec", action="store_true", help="skip execution (gates 3-4, cache check, sweeps): structure only"
    )
    add_workers(parser)
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="also write every count and finding to FILE as JSON"
    )
    add_quiet(parser)


def dataset_dir(args: argparse.Namespace) -> Path:
    """The folder to validate: ``--data`` (bundled by default), or the deprecated positional DIR."""
    import sys

    from ..mteb_task.data_source import SourceKind, resolve_source

    if args.dir is not None:
        if args.data is not None:
            raise UsageError("give the dataset once: --data DIR (the positional DIR is its deprecated spelling)")
        print("execretrieval validate: note: `validate DIR` is deprecated; use `validate --data DIR`", file=sys.stderr)
        return Path(args.dir)
    source = resolve_source(args.data or SourceKind.BUNDLED.value)
    if source.path is None:
        raise UsageError("validate needs a local dataset folder: --data DIR or --data bundled (download a Hub "
                         "release first)")
    return source.path


def run(args: argparse.Namespace) -> int:
    from ..construction.validate import validate_dataset
    from ..dataset.io import write_text_atomic

    root = dataset_dir(args)
    report = validate_dataset(root, execute=not args.no_exec, workers=args.workers, progress=not args.quiet)
    print(f"{root}: {report.queries} queries, {report.snippets} snippets")
    for check, counts in report.counts.items():
        status = "ok  " if counts["failed"] == 0 else "FAIL"
        extra = "".join(f", {k} {v}" for k, v in counts.items() if k not in ("passed", "failed"))
        print(f"  {status} {check}: {counts['passed']} passed, {counts['failed']} failed{extra}")
    if not report.executed:
        print("  (execution skipped: canonical/mutant execution, execution cache and sweeps not checked)")
    for finding in report.findings[:SHOWN_FINDINGS]:
        print(f"  {finding.check} {finding.subject}: {finding.reason}")
    if len(report.findings) > SHOWN_FINDINGS:
        by_check = Counter(f.check for f in report.findings)
        print(
            f"  ... {len(report.findings)} findings in all: "
            + ", ".join(f"{k} {v}" for k, v in sorted(by_check.items()))
        )
    if args.json is not None:
        payload = {
            "queries": report.queries,
            "snippets": report.snippets,
            "executed": report.executed,
            "ok": report.ok,
            "counts": report.counts,
            "findings": [{"check": f.check, "subject": f.subject, "reason": f.reason} for f in report.findings],
        }
        write_text_atomic(args.json, json.dumps(payload, indent=2, sort_keys=True) + "\n")
    print("valid" if report.ok else "INVALID")
    return 0 if report.ok else 1
