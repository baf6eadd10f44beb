"""Every authored task through its validation-only check: the canonical agrees with the independent reference.

One batched oracle run over ``tasks/``; the second test requires a ``[validation]`` table in every
task (the build excludes a task without one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from execretrieval_mteb.construction.builder import BUILD_LIMITS
from execretrieval_mteb.construction.gates import check_reference
from execretrieval_mteb.construction.task_files import AuthoredTask, load_task_files
from execretrieval_mteb.oracle.agreement import ValidationSetupError, read_agreement, reference_suite
from execretrieval_mteb.oracle.api import run_suites

TASKS = Path(__file__).resolve().parents[2] / "tasks"


def _tasks() -> list[AuthoredTask]:
    tasks, problems = load_task_files(TASKS)
    assert not problems, [p.reason for p in problems[:5]]
    return tasks


def test_every_task_agrees_with_its_validation_reference() -> None:
    checked = [t for t in _tasks() if t.validation is not None]
    assert checked, "no task has a [validation] table"
    suites = [
        reference_suite(t.canonical, t.function_name, v.reference, v.inputs)
        for t in checked
        if (v := t.validation) is not None
    ]
    failures = []
    for task, result in zip(checked, run_suites(suites, limits=BUILD_LIMITS)):
        try:
            reasons = check_reference(read_agreement(result))
        except ValidationSetupError as exc:
            reasons = [str(exc)]
        failures += [f"{task.path}: {r}" for r in reasons]
    assert not failures, "\n".join(failures[:20])


def test_every_task_has_a_validation_table() -> None:
    missing = [t.path for t in _tasks() if t.validation is None]
    assert not missing, f"{len(missing)} tasks without [validation], e.g. {missing[:5]}"
