"""One rule for "passes": at least one test, every test ``pass``; the oracle and the evaluator agree."""

from __future__ import annotations

import pytest

from execretrieval_mteb.evaluation.verdicts import PairVerdict, VerdictSource
from execretrieval_mteb.oracle.outcomes import SuiteResult, TestOutcome, passes_all

PASS, FAIL = TestOutcome.parse("pass"), TestOutcome.parse("FAIL")


@pytest.mark.parametrize(("outcomes", "expected"), [
    ((), False),  # nothing was verified: an empty test list does not pass
    ((PASS,), True),
    ((PASS, PASS, PASS), True),
    ((PASS, FAIL), False),
    ((TestOutcome.parse("ERROR:TypeError"),), False),
    ((PASS, TestOutcome.parse("TIMEOUT")), False),
])
def test_every_notion_of_passing_is_passes_all(outcomes: tuple[TestOutcome, ...], expected: bool) -> None:
    assert passes_all(outcomes) is expected
    assert SuiteResult(outcomes).passed is expected
    for source in (VerdictSource.DATASET_CACHE, VerdictSource.ORACLE, VerdictSource.LOCAL_CACHE):
        assert PairVerdict(outcomes, source).passed is expected


def test_an_unjudged_suite_never_passes() -> None:
    assert SuiteResult((PASS,), infra_error="worker died").passed is False
