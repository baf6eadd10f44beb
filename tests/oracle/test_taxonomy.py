"""Verdicts follow the study's taxonomy and agree with the reference runner on ordinary code."""

from __future__ import annotations

from execretrieval_mteb.oracle.api import Oracle, run_suites
from execretrieval_mteb.oracle.outcomes import OutcomeKind, Suite, TestOutcome
from execretrieval_mteb.oracle.protections import Protection
from reference_runner import run_suite_reference  # benchmarks/ (on pytest's pythonpath)

CODE = '''
import math

def _check(x):
    assert x is not None, "helper's own assert: a crash, not wrong output"
    return x

def f(x):
    if _check(x) < 0:
        raise ValueError("negative")
    return math.isqrt(x)
'''

# (test, expected verdict): the expectation is the taxonomy itself, not a recorded run.
CASES = [
    ("assert f(16) == 4", "pass"),
    ("assert f(16) == 5", "FAIL"),
    ("with pytest.raises(ValueError):\n    f(-1)", "pass"),
    ("with pytest.raises(ValueError):\n    f(4)", "FAIL:ValueError"),
    ("with pytest.raises((ValueError, TypeError)):\n    f(4)", "FAIL:ValueError|TypeError"),
    ("with pytest.raises(ValueError, match='neg'):\n    f(-1)", "pass"),
    ("with pytest.raises(ValueError, match='zzz'):\n    f(-1)", "ERROR:AssertionError"),
    ("with pytest.raises(TypeError):\n    f(-1)", "ERROR:ValueError"),
    ("assert f(None) == 0", "ERROR:AssertionError"),
    ("assert f('a') == 0", "ERROR:TypeError"),
    ("assert f(2) / 0 == 1", "ERROR:ZeroDivisionError"),
    ("assert f(2) == pytest.approx(1.4142135, rel=1e-3) or True", "pass"),
    ("assert [f(2) + 0.1] == pytest.approx([1.1])", "pass"),
    ("import pytest as p\nassert p.approx(0.3) == 0.1 + 0.2", "pass"),
    ("assert f(16) ==", "ERROR:SyntaxError"),
    ("x = f(9)\ny = f(16)\nassert (x, y) == (3, 4)", "pass"),
    ("import sys\nsys.exit(0)", "ERROR:SystemExit"),
    ("assert undefined_name", "ERROR:NameError"),
]


def test_each_verdict_matches_the_taxonomy_and_the_reference_runner(oracle: Oracle) -> None:
    suite = Suite(CODE, tuple(t for t, _ in CASES))
    result = oracle.run_one(suite)
    expected = [e for _, e in CASES]
    assert result.outcome_strings() == expected
    assert result.outcome_strings() == run_suite_reference(suite).outcome_strings()
    assert result.infra_error is None and not result.passed
    assert result.has_wrong_output


def test_each_test_gets_a_fresh_namespace_over_the_same_code(oracle: Oracle) -> None:
    tests = ("leaked = 1\nassert f(1) == 1", "assert 'leaked' not in globals()", "assert __name__ == '__main__'")
    assert oracle.run_one(Suite(CODE, tests)).outcome_strings() == ["pass", "pass", "pass"]


def test_code_that_does_not_compile_errors_every_test(oracle: Oracle) -> None:
    suite = Suite("def f(x:\n    return x\n", ("assert f(1) == 1", "assert f(2) == 2"))
    result = oracle.run_one(suite)
    assert result.outcome_strings() == ["ERROR:SyntaxError"] * 2
    assert result.outcome_strings() == run_suite_reference(suite).outcome_strings()


def test_module_level_crash_in_the_code_is_an_error_for_every_test(oracle: Oracle) -> None:
    suite = Suite("import no_such_module_xyz\ndef f():\n    return 1\n", ("assert f() == 1",) * 3)
    assert oracle.run_one(suite).outcome_strings() == ["ERROR:ModuleNotFoundError"] * 3


def test_results_come_back_in_input_order_and_duplicates_run_once(oracle: Oracle) -> None:
    suites = [Suite(f"def f():\n    return {i % 7}\n", (f"assert f() == {i % 5}",)) for i in range(60)]
    before = dict(oracle.stats)
    results = oracle.run(suites)
    assert [r.passed for r in results] == [i % 7 == i % 5 for i in range(60)]
    distinct = len({(s.code, s.tests) for s in suites})
    assert oracle.stats["executed"] - before["executed"] == distinct
    assert oracle.stats["duplicates"] - before["duplicates"] == 60 - distinct


def test_results_record_the_active_protections_as_enums(oracle: Oracle) -> None:
    result = oracle.run_one(Suite("def f():\n    return 1\n", ("assert f() == 1",)))
    assert result.passed
    assert set(result.protections) == set(oracle.protections)
    assert all(isinstance(p, Protection) for p in result.protections)
    assert Protection.SECCOMP in result.protections and Protection.NETWORK_NAMESPACE in result.protections


def test_empty_test_list_gives_empty_outcomes(oracle: Oracle) -> None:
    assert oracle.run_one(Suite("x = 1", ())).outcomes == ()


def test_run_suites_contract(oracle: Oracle) -> None:
    suites = [Suite("def f(x):\n    return x * 2\n", ("assert f(2) == 4", "assert f(2) == 5"))] * 3
    results = run_suites(suites, workers=2)
    assert len(results) == 3
    assert all(r.outcomes == (TestOutcome(OutcomeKind.PASS), TestOutcome(OutcomeKind.FAIL)) for r in results)


def test_exception_type_names_are_made_safe_for_the_protocol(oracle: Oracle) -> None:
    test = "raise type('Odd\\nR 0 pass', (Exception,), {})()"
    assert oracle.run_one(Suite(CODE, (test, "assert f(4) == 2"))).outcome_strings() == ["ERROR:Odd_R_0_pass", "pass"]


def test_a_forked_host_process_gets_its_own_fork_servers(oracle: Oracle) -> None:
    import multiprocessing

    suite = Suite(CODE, ("assert f(16) == 4",))
    assert oracle.run_one(suite).passed
    _INHERITED.append(oracle)  # reaches the forked worker through memory, not pickling
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            in_child = pool.apply(_passes_in_forked_child, (suite,))
    finally:
        _INHERITED.clear()
    assert in_child and oracle.run_one(suite).passed


_INHERITED: list[Oracle] = []


def _passes_in_forked_child(suite: Suite) -> bool:
    result = _INHERITED[0].run_one(suite)
    _INHERITED[0].close()
    return result.passed
