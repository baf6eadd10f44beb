"""How far the tasks' CPU times sit from the build's near-limit line: three builds, side by side.

A build's bytes must not depend on machine speed or load. The build refuses any candidate with a
test (or generated input) that used three quarters of its CPU budget (``NEAR_LIMIT_FRACTION`` of
``BUILD_LIMITS.test_cpu_s``: 75 ms), so a verdict changes only when a test's CPU time crosses that
line between two runs. CPU time is not wall time, but it still varies: by up to a third between
quiet runs, and more under load (cache and memory contention; a test building a huge integer or
list is the worst case).

This script builds the tasks three times, with the CPU budget scaled by ``--low`` (default 0.4)
and by ``--high`` (default 2.0) as well as unchanged, and compares the data files and the build
report (the recorded limits aside). Identical builds mean no candidate's worst test sits between
``low`` and ``high`` times the line (30-150 ms by default): each verdict survives CPU times
2.5x slower or 2x faster than this machine's. A difference names the files that changed; find
the task with ``task_doctor --all`` and shrink the input that made the candidate slow.

    .venv/bin/python benchmarks/build_cpu_margin.py [--tasks tasks] [--low 0.4] [--high 2.0]

It takes three full builds: about 21 minutes on 2 cores (6.5, 4.7 and 9.5 minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path
from unittest import mock

from execretrieval_mteb.construction import builder
from execretrieval_mteb.construction.builder import BUILD_LIMITS, BuildOptions, build
from execretrieval_mteb.dataset.manifest import parse_sums
from execretrieval_mteb.oracle.limits import NEAR_LIMIT_FRACTION


def _build(tasks: Path, out: Path, scale: float) -> tuple[dict[str, str], dict[str, object], float]:
    limits = dataclasses.replace(BUILD_LIMITS, test_cpu_s=BUILD_LIMITS.test_cpu_s * scale)
    started = time.perf_counter()
    with mock.patch.object(builder, "BUILD_LIMITS", limits):
        result = build(BuildOptions(tasks_dir=tasks, out_dir=out))
    settings = {k: v for k, v in result.report["settings"].items() if k != "oracle_limits"}  # scaled on purpose
    return parse_sums(result.sums), {**result.report, "settings": settings}, time.perf_counter() - started


def _differences(base: dict[str, object], other: dict[str, object], path: str = "") -> list[str]:
    if isinstance(base, dict) and isinstance(other, dict):
        return [d for key in sorted(set(base) | set(other))
                for d in _differences(base.get(key), other.get(key), f"{path}.{key}" if path else key)]
    return [] if base == other else [f"{path}: {base!r} -> {other!r}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=Path, default=Path("tasks"))
    parser.add_argument("--low", type=float, default=0.4, help="CPU budget scale of the tight build")
    parser.add_argument("--high", type=float, default=2.0, help="CPU budget scale of the loose build")
    args = parser.parse_args()
    line_ms = 1000 * BUILD_LIMITS.test_cpu_s * NEAR_LIMIT_FRACTION
    with tempfile.TemporaryDirectory() as tmp:
        runs = {scale: _build(args.tasks, Path(tmp) / f"x{scale}", scale) for scale in (1.0, args.low, args.high)}
    base_sums, base_report, _ = runs[1.0]
    clean = True
    for scale, (sums, report, seconds) in runs.items():
        line = f"budget x{scale:<4} near-limit line {line_ms * scale:6.1f} ms  build {seconds:6.1f} s"
        if scale == 1.0:
            print(line + "  (reference)")
            continue
        files = sorted(f for f in set(sums) | set(base_sums)
                       if f != "build_report.json" and sums.get(f) != base_sums.get(f))
        report_diff = _differences(base_report, report)
        clean &= not files and not report_diff
        print(line + ("  identical" if not files and not report_diff else "  DIFFERENT"))
        for item in files + report_diff[:20]:
            print(f"    {item}")
    print("margin: no candidate's worst test sits between "
          f"{line_ms * args.low:.0f} and {line_ms * args.high:.0f} ms" if clean else
          "margin: some verdicts sit near the line (listed above)")
    raise SystemExit(0 if clean else 1)


if __name__ == "__main__":
    main()
