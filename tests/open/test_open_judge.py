"""The name-binding judge and the reference check, in the real sandbox."""

from __future__ import annotations

import pytest

from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.wild import load_validation
from execretrieval_mteb.evaluation.open_judge import Candidate, WildJudgement, bound_program, judge
from execretrieval_mteb.oracle.api import Oracle

TARGET = "highest_power_of_two_at_most"


@pytest.fixture(scope="module")
def closed():
    return load_dataset(BUNDLED_DATASET_DIR)


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as running:
        yield running


def _query(closed, name: str = TARGET):
    return next(q for q in closed.queries if q.function_name == name)


def _judge_one(closed, oracle, code: str, function_name: str, name: str = TARGET):
    query = _query(closed, name)
    validation = {query.query_id: load_validation()[name]}
    candidate = Candidate((query.query_id, "w_x"), bound_program(code, function_name, name), name)
    return judge([candidate], {query.query_id: tuple(query.test_suite)}, validation, oracle)[(query.query_id, "w_x")]


def test_binding_appends_one_assignment() -> None:
    assert bound_program("def f(n):\n    return n\n\n", "f", "target") == "def f(n):\n    return n\n\ntarget = f\n"


def test_a_correct_function_under_another_name_passes(closed, oracle) -> None:
    code = ("def top_bit(value, unused=None):\n    if value <= 0:\n        return 0\n"
            "    return 1 << (value.bit_length() - 1)\n")  # extra parameter with a default: kept
    verdict = _judge_one(closed, oracle, code, "top_bit")
    assert verdict.judgement is WildJudgement.CORRECT and verdict.passes_tests and verdict.passed
    assert verdict.inputs >= 10 and verdict.disagreements == 0


def test_a_function_that_only_fits_the_tests_fools_them_not_the_reference(closed, oracle) -> None:
    query = _query(closed)
    table = {}
    for test in query.test_suite:  # "assert f(ARG) == VALUE": memorise exactly the tested answers
        call, _, value = test.removeprefix("assert ").partition(" == ")
        table[int(call[call.index("(") + 1:-1])] = int(value)
    code = f"def memorised(n):\n    table = {table!r}\n    return table.get(n, 1)\n"
    verdict = _judge_one(closed, oracle, code, "memorised")
    assert verdict.passes_tests and verdict.judgement is WildJudgement.FOOLS_TESTS and not verdict.passed
    assert verdict.disagreements > 0


def test_a_different_arity_fails_with_type_error(closed, oracle) -> None:
    verdict = _judge_one(closed, oracle, "def add(a, b):\n    c = a + b\n    return c\n", "add")
    assert verdict.judgement is WildJudgement.FAILS_TESTS
    assert {o.to_str() for o in verdict.outcomes} == {"ERROR:TypeError"}


def test_a_missing_module_name_fails_with_name_error(closed, oracle) -> None:
    verdict = _judge_one(closed, oracle, "@lru_cache\ndef f(n):\n    x = n\n    return x\n", "f")
    assert {o.to_str() for o in verdict.outcomes} == {"ERROR:NameError"}


def test_on_the_closed_pool_the_reference_check_changes_no_label(closed, oracle) -> None:
    """Every canonical passes its tests and agrees with its reference (the build verified it), so the
    strong judge keeps every closed label: it can only demote a snippet that passes the tests, and
    every mutant fails one."""
    validation = load_validation()
    corpus = {c.corpus_id: c.code for c in closed.corpus}
    sample = list(closed.queries)
    candidates = [Candidate((q.query_id, q.correct_corpus_ids[0]), corpus[q.correct_corpus_ids[0]], q.function_name)
                  for q in sample]
    verdicts = judge(candidates, {q.query_id: tuple(q.test_suite) for q in sample},
                     {q.query_id: validation[q.function_name] for q in sample}, oracle)
    assert {v.judgement for v in verdicts.values()} == {WildJudgement.CORRECT}
