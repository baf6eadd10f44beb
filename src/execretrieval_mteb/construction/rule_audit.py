"""The audit's counts: which stated rules an earlier version of the tests missed, and what changed since.

    python -m execretrieval_mteb.construction.rule_audit tasks/ --before OLD_TASKS_DIR [--json OUT]

Every task of ``tasks/`` that has rule variants (``[[validation.rules]]``) has them run, in the
sandbox, on the tests the same task had in ``OLD_TASKS_DIR`` (e.g. ``git worktree add`` of the
commit before the audit): a variant that passes every old test is a stated rule those tests did not
pin. Beside that, per task: whether the tests, the canonical or the query changed, and how many tests
it has. Nothing is written but the report (stdout, and ``--json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ..oracle.api import run_suites
from .builder import BUILD_LIMITS
from .rule_variants import surviving, variant_suites
from .task_files import AuthoredTask, load_task_files


@dataclass(frozen=True)
class TaskAudit:
    path: str
    rules: int
    missed_before: tuple[str, ...]
    """The rules whose variants passed every test of the earlier version."""
    tests_changed: bool
    tests_added: int
    canonical_changed: bool
    query_changed: bool


def audit(now: Sequence[AuthoredTask], before: Sequence[AuthoredTask], workers: int | None = None) -> list[TaskAudit]:
    old = {t.path: t for t in before}
    pairs = [(t, old[t.path]) for t in now if t.path in old]
    suites = [s for t, o in pairs for s in variant_suites(t.rules, o.tests)]
    results = iter(run_suites(suites, workers=workers, limits=BUILD_LIMITS) if suites else [])
    out = []
    for task, previous in pairs:
        missed = surviving(task.rules, [next(results) for _ in task.rules])
        out.append(TaskAudit(
            path=task.path, rules=len(task.rules), missed_before=tuple(v.rule for v in missed),
            tests_changed=task.tests != previous.tests, tests_added=len(set(task.tests) - set(previous.tests)),
            canonical_changed=task.canonical != previous.canonical, query_changed=task.query != previous.query,
        ))
    return out


def summary(audits: Sequence[TaskAudit]) -> dict[str, int]:
    return {
        "tasks": len(audits),
        "tasks_with_rules": sum(1 for a in audits if a.rules),
        "rules": sum(a.rules for a in audits),
        "rules_missed_before": sum(len(a.missed_before) for a in audits),
        "tasks_with_a_missed_rule": sum(1 for a in audits if a.missed_before),
        "tasks_tests_changed": sum(1 for a in audits if a.tests_changed),
        "tests_added": sum(a.tests_added for a in audits),
        "canonicals_changed": sum(1 for a in audits if a.canonical_changed),
        "queries_changed": sum(1 for a in audits if a.query_changed),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rule_audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", type=Path, help="the tasks folder now (with [[validation.rules]])")
    parser.add_argument("--before", type=Path, required=True, help="the tasks folder of the earlier version")
    parser.add_argument("--json", type=Path, default=None, help="also write every task's audit as JSON here")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    now, _ = load_task_files(args.tasks)
    before, _ = load_task_files(args.before)
    audits = audit(now, before, workers=args.workers)
    totals = summary(audits)
    for key, value in totals.items():
        print(f"{key}: {value:,}")
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": totals, "tasks": [asdict(a) for a in audits]}, indent=1) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
