"""``execretrieval validate DIR``: re-run the gates and sweeps on a built dataset (ours or the original release)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ..errors import UsageError

HELP = "Re-run the five gates, both sweeps and the checksums on a built dataset; exit 1 if anything fails."
SHOWN_FINDINGS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", type=Path, help="dataset folder (made by `execretrieval build`, or the original release)"
    )
    parser.add_argument(
        "--no-exec", action="store_true", help="skip execution (gates 3-4, cache check, sweeps): structure only"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="oracle worker processes (default: the oracle's choice)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="also write every count and finding to FILE as JSON"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from ..construction.validate import validate_dataset
    from ..dataset.io import write_text_atomic

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    report = validate_dataset(args.dir, execute=not args.no_exec, workers=args.workers, progress=not args.quiet)
    print(f"{args.dir}: {report.queries} queries, {report.snippets} snippets")
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
