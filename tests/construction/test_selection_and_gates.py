"""Judging executed candidates, choosing four, and the execution gates, on real oracle runs."""

from __future__ import annotations

from collections import Counter

from execretrieval_mteb.construction.gates import (
    IntegrityQuery,
    check_canonical,
    check_corpus_integrity,
    check_live,
    check_mutants,
)
from execretrieval_mteb.construction.mutation import Mutant, enumerate_mutants
from execretrieval_mteb.construction.selection import (
    Rejection,
    SamePrograms,
    Verdict,
    edit_lines,
    judge,
    select_mutants,
)
from execretrieval_mteb.oracle.agreement import Agreement, mutant_suite, raises_tests, read_agreement
from execretrieval_mteb.dataset.schema import BugType
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import FAIL, PASS, Suite, SuiteResult

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


INPUTS = """
def inputs(rng):
    return [([rng.randint(-5, 9) for _ in range(rng.randint(0, 6))], rng.randint(0, 30)) for _ in range(20)]
"""


def test_judge_tells_survivor_crash_only_slow_and_wrong_output_apart() -> None:
    codes = {
        "wrong": "def f(n):\n    return n + 1\n",
        "equivalent": "def f(n):\n    return n + 0\n",
        "crash": "def f(n):\n    return n / 0\n",
        "hang": "def f(n):\n    while True:\n        pass\n",
    }
    tests = ("assert f(1) == 1", "assert f(2) == 2")
    results = dict(zip(codes, run_suites([Suite(c, tests) for c in codes.values()])))
    assert judge(results["wrong"]) is None
    assert judge(results["equivalent"]) is Rejection.SURVIVOR  # no agreement run: not yet equivalent or live
    assert judge(results["crash"]) is Rejection.CRASH_ONLY
    assert judge(results["hang"]) is Rejection.SLOW
    assert check_mutants([results["equivalent"]]) == ["mutant 1 passes every test"]
    assert check_mutants([results["crash"]])[0].startswith("mutant 1 fails only by crashing (ERROR:ZeroDivisionError)")
    assert check_canonical(results["wrong"], tests) == [
        "canonical fails its own tests: test 1 `assert f(1) == 1`: FAIL; test 2 `assert f(2) == 2`: FAIL"
    ]
    assert check_canonical(results["equivalent"], tests) == []


def test_judge_uses_raises_tests_and_the_agreement_with_the_canonical() -> None:
    tests = ("assert f(2) == 4", "with pytest.raises(ValueError):\n    f(-1)")
    canonical = "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return 2 * n\n"
    inputs = "def inputs(rng):\n    return [(n,) for n in range(3, 15)]\n"  # 2, a tested corner, is not typical
    codes = {
        "unguarded": "def f(n):\n    return 2 * n\n",  # wrong only on the invalid input
        "live": "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return 2 * n if n != 7 else 0\n",
        "equivalent": "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return n + n\n",
        "corner": "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return 2 * n if n != 2 else 5\n",
        "usable": "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return 3 * n\n",
    }
    results = dict(zip(codes, run_suites([Suite(c, tests) for c in codes.values()])))
    agreements = dict(zip(codes, (read_agreement(r) for r in run_suites(
        [mutant_suite(c, "f", canonical, inputs) for c in codes.values()]
    ))))
    raises = raises_tests(tests)
    assert raises == {1}
    assert judge(results["unguarded"], raises) is Rejection.RAISES_ONLY
    assert judge(results["live"], raises, agreements["live"]) is Rejection.LIVE
    assert agreements["live"].disagree == (4,) and agreements["live"].inputs == 12
    assert judge(results["equivalent"], raises, agreements["equivalent"]) is Rejection.EQUIVALENT
    assert judge(results["corner"], raises, agreements["corner"]) is Rejection.AGREES_ON_INPUTS
    assert judge(results["usable"], raises) is None  # usable on its tests, agreement not run yet
    assert judge(results["usable"], raises, agreements["usable"]) is None
    assert check_mutants([results["unguarded"]], raises) == [
        "mutant 1 is wrong only in pytest.raises tests, never on a valid input"
    ]
    assert check_mutants([results["corner"]], raises, [agreements["corner"]]) == [
        "mutant 1 agrees with the canonical on every generated input"
    ]
    verdict = Verdict(Mutant(BugType.WRONG_OPERATOR, codes["live"], (0, 1), "d", "e", 4, "x"), results["live"], raises)
    assert check_live([verdict.with_agreement(agreements["live"])]) == [
        "tests miss a bug: x (wrong_operator) passes every test but disagrees with the canonical on generated "
        "input #4; add a test"
    ]


def _verdicts() -> list[Verdict]:
    mutants = enumerate_mutants(CANONICAL)
    results = run_suites([Suite(m.code, TESTS) for m in mutants])
    agreements = run_suites([mutant_suite(m.code, "clamp_sum", CANONICAL, INPUTS) for m in mutants])
    raises = raises_tests(TESTS)
    return [Verdict(m, r, raises, read_agreement(a)) for m, r, a in zip(mutants, results, agreements)]


def test_selection_prefers_distinct_lines_then_diverse_types_then_subtle_mutants_and_is_deterministic() -> None:
    verdicts = _verdicts()
    usable = [v for v in verdicts if v.verified]
    assert len({v.mutant.bug_type for v in usable}) >= 4
    picks = select_mutants(verdicts, {}, seed=0, task_key="clamp_sum")
    assert len(picks) == 4 and all(p.verified for p in picks)
    usable_lines = {v.mutant.line for v in usable}
    assert len(usable_lines) == 3  # the guard (lines 2-3) is caught only by pytest.raises; line 8 has no edit
    assert {p.mutant.line for p in picks} == usable_lines  # as many lines as the usable candidates allow
    assert sum(p.mutant.bug_type is BugType.REMOVE_EDGE_CASE_CHECK for p in picks) <= 1
    assert select_mutants(list(reversed(verdicts)), {}, seed=0, task_key="clamp_sum") == picks
    assert check_mutants([p.result for p in picks], raises_tests(TESTS), [p.agreement for p in picks]) == []
    assert not any(v.rejection is Rejection.RAISES_ONLY and v in picks for v in verdicts)


def test_selection_favours_bug_types_the_corpus_has_fewest_of() -> None:
    verdicts = _verdicts()
    accepted_types = sorted({v.mutant.bug_type for v in verdicts if v.verified}, key=lambda t: t.value)
    rare = accepted_types[0]
    tally = Counter({t: 100 for t in BugType})
    tally[rare] = 0
    picks = select_mutants(verdicts, tally, seed=0, task_key="clamp_sum")
    assert picks[0].mutant.bug_type is rare


def test_selection_never_picks_two_programs_known_to_be_one_and_at_most_one_guard_removal() -> None:
    tests = tuple(f"assert h({n}) == {max(0, min(n, 100))}" for n in (-2, 0, 1, 2, 3, 101, 100))
    canonical = "def h(n):\n    if n < 1:\n        return 0\n    if n > 100:\n        return 100\n    return n\n"
    inputs = "def inputs(rng):\n    return [(n,) for n in range(-5, 15)]\n"
    mutants = {m.bug_description: m for m in enumerate_mutants(canonical)}
    twins = [mutants["Changed `n < 1` to `n <= 1` on line 2"], mutants["Changed `n < 1` to `n < 2` on line 2"]]
    results = run_suites([Suite(m.code, tests) for m in twins])
    agreements = [read_agreement(r) for r in run_suites([mutant_suite(m.code, "h", canonical, inputs) for m in twins])]
    a, b = (Verdict(m, r, frozenset(), g) for m, r, g in zip(twins, results, agreements))
    assert a.verified and b.verified and SamePrograms.may_be_same(a, b)
    same = SamePrograms()
    assert not same.conflict(a, b, optimistic=True) and same.conflict(a, b, optimistic=False)
    same.record(a, b, read_agreement(run_suites([mutant_suite(a.mutant.code, "h", b.mutant.code, inputs)])[0]))
    assert same.conflict(a, b, optimistic=True)
    assert len(select_mutants([a, b], {}, 0, "h", same=same)) == 1

    guards = [m for m in enumerate_mutants(canonical) if m.bug_type is BugType.REMOVE_EDGE_CASE_CHECK]
    assert len(guards) == 2
    fake = SuiteResult(outcomes=(FAIL,) + (PASS,) * 6)
    verdicts = [Verdict(m, fake, frozenset(), Agreement(20, (i,), ())) for i, m in enumerate(guards)]
    assert len(select_mutants(verdicts, {}, 0, "h")) == 1


def test_optimistic_selection_counts_pending_candidates_until_verified() -> None:
    verdicts = [Verdict(v.mutant, v.result, v.raises_tests) for v in _verdicts()]  # agreements not run
    assert select_mutants(verdicts, {}, 0, "clamp_sum") == []
    optimistic = select_mutants(verdicts, {}, 0, "clamp_sum", optimistic=True)
    assert len(optimistic) == 4 and all(v.pending for v in optimistic)


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
