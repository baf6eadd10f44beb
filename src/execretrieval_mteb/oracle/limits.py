"""Resource limits of one sandboxed suite, and the cache salt derived from them.

The defaults keep the study's budget of 5 s per suite and give each test a fair share of it
(0.5 s of CPU: ten tests fill the budget), so that one hanging test times out on its own and the
remaining tests still get a verdict. Tests of this benchmark run in microseconds to milliseconds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

ORACLE_VERSION = "5"
"""Bump when a change to the sandbox program can change a verdict: it invalidates the cache.
2: wall-clock TIMEOUTs confirmed, a uid per worker, libseccomp rules (more calls denied).
3: the launcher is a fresh interpreter, so a test starts 3 frames shallower (one that recursed to
within 3 frames of the recursion limit now passes).
4: a test is stopped right at the end of its CPU budget (read exactly), no longer up to two ticks after it.
5: a test that used more CPU than its budget is TIMEOUT whatever it reported; ``sendmsg``, ``O_TMPFILE``,
``memfd_create`` and ``mlock`` are refused (``tempfile`` falls back to named files); the host name is ``sandbox``."""

TIMEOUT_CONFIRM_FACTOR = 2.0
"""A test stopped by a wall-clock budget before using its CPU budget is run again with this many
times the wall budgets (per test and per suite); only if it times out again is it TIMEOUT."""

NEAR_LIMIT_FRACTION = 0.75
"""A test that used at least this share of its CPU budget is reported near the limit
(``SuiteResult.near_limit``): a slower or busier machine could change its verdict. On the
build's 0.1 s budget (75 ms line) no test or generated input of the 1,009 tasks' candidates uses
between 30 and 150 ms of CPU: builds with the budget scaled by 0.4 and by 2 are byte-identical
to the normal one (``benchmarks/build_cpu_margin.py``). CPU time is counted exactly (``_cpu_now`` in
``sandbox/child.py``) but varies by up to a third between quiet runs, more under load when a test
is memory-bound, so that margin, not the line, keeps the build's verdicts machine-independent."""


@dataclass(frozen=True, slots=True)
class Limits:
    test_cpu_s: float = 0.5
    """CPU seconds one test may use before it is TIMEOUT."""
    test_wall_s: float = 2.0
    """Wall seconds one test may take (sleeping, blocked, or a C loop ignoring signals) before it is killed."""
    suite_wall_s: float = 5.0
    """Wall seconds for the whole suite; tests not finished by then are TIMEOUT."""
    memory_mb: int = 2048
    """RLIMIT_AS of the sandboxed process (threads reserve address space, so this is generous)."""
    file_size_mb: int = 16
    """RLIMIT_FSIZE: the largest file the code may write."""
    scratch_mb: int = 64
    """Size of the tmpfs that is each suite's scratch directory."""
    scratch_files: int = 16384
    """Files and directories that tmpfs may hold (their kernel memory is not counted in ``scratch_mb``)."""
    open_files: int = 64
    """RLIMIT_NOFILE."""
    processes: int = 512
    """RLIMIT_NPROC for the sandbox uid (threads count; each worker has a uid of its own)."""

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive, got {value!r}")
        if self.test_wall_s < self.test_cpu_s:
            raise ValueError("Limits.test_wall_s must be at least Limits.test_cpu_s")

    def to_json(self) -> dict[str, float | int]:
        return asdict(self)


def near_limit(cpu_s: Sequence[float], limits: Limits) -> frozenset[int]:
    """Indices of the tests whose CPU seconds reach ``NEAR_LIMIT_FRACTION`` of the budget."""
    threshold = NEAR_LIMIT_FRACTION * limits.test_cpu_s
    return frozenset(i for i, used in enumerate(cpu_s) if used >= threshold)


def cache_salt(limits: Limits, interpreter_version: str) -> str:
    """Short hash of everything besides (code, tests) that can change a verdict."""
    blob = json.dumps(
        {"oracle_version": ORACLE_VERSION, "limits": limits.to_json(), "python": interpreter_version,
         "timeout_confirm_factor": TIMEOUT_CONFIRM_FACTOR, "near_limit_fraction": NEAR_LIMIT_FRACTION},
        sort_keys=True, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
