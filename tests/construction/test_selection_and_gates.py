"""Judging executed candidates, choosing four, and the execution gates, on real oracle runs."""

from __future__ import annotations

from collections import Counter

from execretrieval_mteb.construction.gates import IntegrityQuery, check_canonical, check_corpus_integrity, check_mutants
from execretrieval_mteb.construction.mutation import enumerate_mutants
from execretrieval_mteb.construction.selection import Rejection, Verdict, judge, sample_candidates, select_mutants
from execretrieval_mteb.dataset.schema import BugType
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import Suite

CANONICAL = (
    "def clamp_sum(xs, limit):\n"
    "    if limit < 0:\n"
    "        raise ValueError('negative limit')\n"
    "    total = 0\n"
    "    for x in xs:\n"
    "        if x > 0:\n"
    "            total += x\n"
    "    return min(total, limit)\n"
)
TESTS = (
    "assert clamp_sum([1, 2, 3], 10) == 6",
    "assert clamp_sum([1, 2, 3], 4) == 4",
    "assert clamp_sum([-1, 2], 10) == 2",
    "assert clamp_sum([], 5) == 0",
    "assert clamp_sum([0, 0, 1], 1) == 1",
    "assert clamp_sum([5], 0) == 0",
    "with pytest.raises(ValueError):\n    clamp_sum([1], -1)",
)


def test_judge_tells_equivalent_crash_only_timeout_and_wrong_output_apart() -> None:
    codes = {
        "wrong": "def f(n):\n    return n + 1\n",
        "equivalent": "def f(n):\n    return n + 0\n",
        "crash": "def f(n):\n    return n / 0\n",
        "hang": "def f(n):\n    while True:\n        pass\n",
    }
    tests = ("assert f(1) == 1", "assert f(2) == 2")
    results = dict(zip(codes, run_suites([Suite(c, tests) for c in codes.values()])))
    assert judge(results["wrong"]) is None
    assert judge(results["equivalent"]) is Rejection.EQUIVALENT
    assert judge(results["crash"]) is Rejection.CRASH_ONLY
    assert judge(results["hang"]) is Rejection.TIMEOUT
    assert check_mutants([results["equivalent"]]) == ["mutant 1 passes every test"]
    assert check_mutants([results["crash"]])[0].startswith("mutant 1 fails only by crashing (ERROR:ZeroDivisionError)")
    assert check_canonical(results["wrong"], tests) == [
        "canonical fails its own tests: test 1 `assert f(1) == 1`: FAIL; test 2 `assert f(2) == 2`: FAIL"
    ]
    assert check_canonical(results["equivalent"], tests) == []


def _verdicts() -> list[Verdict]:
    mutants = enumerate_mutants(CANONICAL)
    results = run_suites([Suite(m.code, TESTS) for m in mutants])
    return [Verdict(m, r) for m, r in zip(mutants, results)]


def test_selection_prefers_diverse_types_then_subtle_mutants_and_is_deterministic() -> None:
    verdicts = _verdicts()
    accepted_types = {v.mutant.bug_type for v in verdicts if v.rejection is None}
    assert len(accepted_types) >= 4
    picks = select_mutants(verdicts, {}, seed=0, task_key="clamp_sum")
    assert len(picks) == 4
    assert len({p.mutant.bug_type for p in picks}) == 4
    assert all(p.rejection is None for p in picks)
    for pick in picks:  # the subtlest of its type
        same_type = [v for v in verdicts if v.rejection is None and v.mutant.bug_type is pick.mutant.bug_type]
        assert len(pick.result.failed_tests) == min(len(v.result.failed_tests) for v in same_type)
    assert select_mutants(list(reversed(verdicts)), {}, seed=0, task_key="clamp_sum") == picks
    assert check_mutants([p.result for p in picks]) == []


def test_selection_favours_bug_types_the_corpus_has_fewest_of() -> None:
    verdicts = _verdicts()
    accepted_types = sorted({v.mutant.bug_type for v in verdicts if v.rejection is None}, key=lambda t: t.value)
    rare = accepted_types[0]
    tally = Counter({t: 100 for t in BugType})
    tally[rare] = 0
    picks = select_mutants(verdicts, tally, seed=0, task_key="clamp_sum")
    assert picks[0].mutant.bug_type is rare


def test_four_mutants_failing_identical_tests_are_rejected_by_gate_four() -> None:
    tests = (
        "assert g(1) == 2",
        "assert g(2) == 3",
        "assert g(3) == 4",
        "assert g(4) == 5",
        "assert g(5) == 6",
        "assert g(6) == 7",
        "assert g(7) == 8",
    )
    codes = [f"def g(n):\n    return n + {k}\n" for k in (2, 3, 4, 5)]
    results = run_suites([Suite(c, tests) for c in codes])
    assert check_mutants(results) == ["all 4 mutants fail the identical set of tests; add tests that tell them apart"]


def test_sampling_takes_up_to_n_per_type_deterministically() -> None:
    mutants = enumerate_mutants(CANONICAL)
    sample = sample_candidates(mutants, 1, seed=3, task_key="clamp_sum")
    assert Counter(m.bug_type for m in sample) == Counter({t: 1 for t in {m.bug_type for m in mutants}})
    assert sample == sample_candidates(mutants, 1, seed=3, task_key="clamp_sum")
    assert sample_candidates(mutants, 0, seed=3, task_key="clamp_sum") == mutants


def test_corpus_integrity_finds_dangling_shared_and_orphan_ids() -> None:
    queries = [
        IntegrityQuery("q_0", "f", ("c_0",), ("c_1", "c_9")),
        IntegrityQuery("q_1", "f", ("c_1",), ()),
    ]
    corpus = [("c_0", "a"), ("c_1", "b"), ("c_2", "b")]
    problems = check_corpus_integrity(queries, corpus)
    reasons = [r for _, r in problems]
    assert "points at corpus id c_9, which does not exist" in reasons
    assert "target name f is shared with another query" in reasons
    assert "shares corpus ids with another query" in reasons
    assert "1 code text(s) appear more than once in the corpus" in reasons
    assert "1 corpus item(s) belong to no query, e.g. c_2" in reasons
