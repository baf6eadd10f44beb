"""The sweeps' building blocks: name search, cross pairs, and re-selection around an unstable mutant."""

from __future__ import annotations

from pathlib import Path

from execretrieval_mteb.construction.builder import BuildOptions, _Build
from execretrieval_mteb.construction.mutation import enumerate_mutants
from execretrieval_mteb.construction.selection import Verdict, select_mutants
from execretrieval_mteb.construction.sweeps import bound_names, cross_canonical_pairs
from execretrieval_mteb.construction.task_files import AuthoredTask
from execretrieval_mteb.oracle.agreement import mutant_suite, read_agreement
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import FAIL, PASS, Suite, SuiteResult


def test_bound_names_finds_defs_classes_imports_and_assignments() -> None:
    code = (
        "from math import gcd as greatest\nimport os.path\nhelper = lambda x: x\n"
        "class Box:\n    pass\ndef outer():\n    def inner():\n        return 1\n    return inner\n"
    )
    assert bound_names(code) == {"greatest", "os", "helper", "Box", "outer", "inner"}
    assert bound_names("def broken(:\n") == frozenset()


def test_cross_pairs_run_an_item_only_against_other_targets_it_binds() -> None:
    items = [("f", "def f():\n    return g()\ndef g():\n    return 1\n"), ("g", "def g():\n    return 2\n")]
    pairs = cross_canonical_pairs(items, {"f": ("assert f() == 1",), "g": ("assert g() == 2",)})
    assert [(p.item, p.owner, p.target, p.suite.tests) for p in pairs] == [(0, "f", "g", ("assert g() == 2",))]


CANONICAL = (
    "def span_count(lo, hi):\n    if hi < lo:\n        return 0\n    count = 0\n"
    "    for _ in range(lo, hi + 1):\n        count += 1\n    return count\n"
)
TESTS = tuple(
    f"assert span_count({a}, {b}) == {max(0, b - a + 1)}"
    for a, b in [(1, 3), (0, 0), (5, 4), (2, 9), (-3, 3), (7, 7), (3, 1)]
)


INPUTS = "def inputs(rng):\n    return [(rng.randint(-9, 9), rng.randint(-9, 9)) for _ in range(20)]\n"


def test_an_unstable_mutant_is_replaced_by_a_stable_one(tmp_path: Path) -> None:
    task = AuthoredTask("math_numerical", "span_count", "math_numerical/span_count.toml", "Count.", CANONICAL, TESTS)
    mutants = enumerate_mutants(CANONICAL)
    results = run_suites([Suite(CANONICAL, TESTS)] + [Suite(m.code, TESTS) for m in mutants])
    agreements = run_suites([mutant_suite(m.code, "span_count", CANONICAL, INPUTS) for m in mutants])
    stage = _Build(BuildOptions(tasks_dir=tmp_path, out_dir=tmp_path / "out"), log=lambda _m: None)
    stage.canonical_results = {task.path: results[0]}
    stage.verdicts = {
        task.path: [
            Verdict(m, r, frozenset(), read_agreement(a))
            for m, r, a in zip(mutants, results[1:], agreements, strict=True)
        ]
    }
    chosen = {task.path: select_mutants(stage.verdicts[task.path], {}, 0, task.function_name)}
    first_picks = list(chosen[task.path])
    second = {Suite(CANONICAL, TESTS): results[0]}
    second.update({Suite(v.mutant.code, TESTS): v.result for v in stage.verdicts[task.path]})
    flaky = first_picks[0]
    flipped = tuple(FAIL if o.passed else PASS for o in flaky.result.outcomes)  # what a second run might show
    second[Suite(flaky.mutant.code, TESTS)] = SuiteResult(outcomes=flipped)
    dropped: dict[str, set[str]] = {}

    assert stage._restabilise(task, chosen, second, dropped) is True  # re-selected: run the new picks again
    assert dropped == {task.path: {flaky.mutant.code}}
    assert flaky not in chosen[task.path] and len(chosen[task.path]) == 4
    assert set(first_picks[1:]) <= set(chosen[task.path])
    assert stage._restabilise(task, chosen, second, dropped) is False  # the new four agree with their first run
    assert task.path not in stage.ledger.exclusions

    second[Suite(CANONICAL, TESTS)] = SuiteResult(outcomes=(FAIL,) * len(TESTS))
    assert stage._restabilise(task, chosen, second, dropped) is False
    assert (
        stage.ledger.exclusions[task.path][0].reason == "canonical outcomes differ between two runs (non-deterministic)"
    )
