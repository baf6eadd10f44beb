"""Library entry point of the oracle: run many suites, in order, with results and cache.

INTERIM: this runs suites through the unsandboxed reference runner in a thread pool so that the
construction pipeline can be developed against the final signature. The sandboxed fork-server
implementation replaces the body of ``run_suites`` (issue: sandboxed execution oracle).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from .outcomes import Suite, SuiteResult
from .reference_runner import run_suite_reference


def run_suites(suites: Sequence[Suite], workers: int | None = None, progress: bool = False) -> list[SuiteResult]:
    """Run every suite; results come back in input order."""
    with ThreadPoolExecutor(max_workers=workers or 2) as pool:
        return list(pool.map(run_suite_reference, suites))
