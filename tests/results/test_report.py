"""The evaluation file records no trace of what ran before."""

from __future__ import annotations

from execretrieval_mteb.evaluation.verdicts import VerdictSource
from execretrieval_mteb.results.report import recorded_counts, recorded_source


def test_a_verdict_from_the_local_oracle_cache_is_recorded_as_the_oracles() -> None:
    assert recorded_source(VerdictSource.LOCAL_CACHE) is VerdictSource.ORACLE
    assert all(recorded_source(s) is s for s in VerdictSource if s is not VerdictSource.LOCAL_CACHE)
    first_run = {VerdictSource.DATASET_CACHE: 5, VerdictSource.STATIC_UNBOUND: 40, VerdictSource.LOCAL_CACHE: 0,
                 VerdictSource.ORACLE: 3, VerdictSource.NOT_JUDGED: 0}
    rerun = {**first_run, VerdictSource.LOCAL_CACHE: 2, VerdictSource.ORACLE: 1}
    assert recorded_counts(first_run) == recorded_counts(rerun) == {
        "dataset_cache": 5, "static_unbound": 40, "oracle": 3, "not_judged": 0}
