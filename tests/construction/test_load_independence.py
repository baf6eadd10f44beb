"""A build's bytes do not depend on how busy the machine is.

The fixture holds ``sum_below_cap``, whose two guard mutants spend one to two build CPU budgets on
one test (quiet, some runs time out and some finish near the limit; both are the one rejection
``slow``, so the report does not depend on which), and ``prime_factorization``, five of whose mutants
loop forever. Every other candidate stays well under the near-limit line (no test above 20 ms),
as the content guide asks of real tasks. Busy loops (three per CPU, as many as "six on two cores")
load the machine for the second build; wall-clock deadlines then pass long before CPU budgets,
which the oracle must not turn into different verdicts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from execretrieval_mteb.construction.builder import BuildOptions, build

NEAR_LIMIT_TASKS = Path(__file__).parent / "fixtures" / "near_limit_tasks"


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    loops = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def test_a_build_under_cpu_load_is_byte_identical_to_a_quiet_one(tmp_path: Path) -> None:
    options = {"tasks_dir": NEAR_LIMIT_TASKS, "candidates_per_type": 0}  # every candidate, the slow one included
    quiet = build(BuildOptions(out_dir=tmp_path / "quiet", **options))
    with busy_loops(3 * len(os.sched_getaffinity(0))):
        loaded = build(BuildOptions(out_dir=tmp_path / "loaded", **options))
    assert loaded.sums == quiet.sums
    assert (tmp_path / "loaded" / "SHA256SUMS").read_bytes() == (tmp_path / "quiet" / "SHA256SUMS").read_bytes()
    for result in (quiet, loaded):
        assert result.report["counts"]["queries"] == 3
        assert result.report["candidates"]["slow"] >= 1
        assert result.report["candidates"]["oracle_not_judged"] == 0
