"""Which (query, snippet) pairs pass all of the query's tests: the execution cache first, then the oracle.

The dataset's ``execution_cache.jsonl`` holds per-test outcomes keyed by (code sha256, tests
sha256). Inside MTEB's process nothing is executed: a pair absent from the cache counts as
failing. That is sound only because the build's cross-canonical sweep ran every snippet that
defines another query's target function against that query's tests and found none passing, so
every pair missing from the cache is a snippet that does not even define the target. The
``execretrieval run`` command does not rely on that argument for the top k: it checks every
candidate pair, running the ones missing from the cache through the oracle. A pair the oracle
could not judge (its harness failed twice) is ``NOT_JUDGED``: it counts as not passing, and the
run carries on and reports how many there were.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..errors import ExecRetrievalError
from ..oracle.api import run_suites
from ..oracle.outcomes import Suite, TestOutcome, code_sha256, tests_sha256


class VerdictSource(enum.Enum):
    CACHE = "cache"
    ORACLE = "oracle"
    NOT_JUDGED = "not_judged"  # the oracle's harness failed on it (``PairVerdict.infra_error``)


@dataclass(frozen=True)
class PairVerdict:
    """Per-test outcomes of one snippet against one query's tests, and where they came from."""

    outcomes: tuple[TestOutcome, ...]
    source: VerdictSource
    infra_error: str | None = None

    @property
    def passed(self) -> bool:
        return bool(self.outcomes) and all(o.passed for o in self.outcomes)


Pair = tuple[str, str]  # (query_id, corpus_id)


def passing_from_cache(dataset: BuiltDataset) -> dict[str, frozenset[str]]:
    """For each query, the snippets the cache records as passing every test (absent pairs fail)."""
    by_code: dict[str, list[str]] = defaultdict(list)
    for record in dataset.corpus:
        by_code[code_sha256(record.code)].append(record.corpus_id)
    by_tests: dict[str, list[str]] = defaultdict(list)
    for query in dataset.queries:
        by_tests[tests_sha256(query.test_suite)].append(query.query_id)
    passing: dict[str, set[str]] = {q.query_id: set() for q in dataset.queries}
    for (code_hash, tests_hash), outcomes in dataset.execution_cache.items():
        if outcomes and all(o.passed for o in outcomes) and code_hash in by_code and tests_hash in by_tests:
            for qid in by_tests[tests_hash]:
                passing[qid].update(by_code[code_hash])
    return {qid: frozenset(ids) for qid, ids in passing.items()}


def check_pairs(
    dataset: BuiltDataset,
    pairs: Iterable[Pair],
    *,
    workers: int | None = None,
    progress: bool = False,
    oracle_cache: Path | None = None,
) -> dict[Pair, PairVerdict]:
    """Verdict of every pair: from the dataset's cache when present, otherwise from the oracle
    (once per distinct suite; the oracle's own persistent cache at ``oracle_cache`` makes reruns free)."""
    code = {c.corpus_id: c.code for c in dataset.corpus}
    tests = {q.query_id: q.test_suite for q in dataset.queries}
    verdicts: dict[Pair, PairVerdict] = {}
    missing: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    suites: dict[tuple[str, str], Suite] = {}
    for pair in dict.fromkeys(pairs):
        qid, cid = pair
        if qid not in tests or cid not in code:
            raise ExecRetrievalError(f"prediction names query {qid!r} / snippet {cid!r}, absent from {dataset.root}")
        key = (code_sha256(code[cid]), tests_sha256(tests[qid]))
        cached = dataset.execution_cache.get(key)
        if cached is not None:
            verdicts[pair] = PairVerdict(cached, VerdictSource.CACHE)
        else:
            missing[key].append(pair)
            suites.setdefault(key, Suite(code[cid], tuple(tests[qid])))
    if suites:
        keys = list(suites)
        results = run_suites([suites[k] for k in keys], workers=workers, progress=progress, cache=oracle_cache)
        for key, result in zip(keys, results, strict=True):
            for pair in missing[key]:
                if result.infra_error is not None:
                    verdicts[pair] = PairVerdict((), VerdictSource.NOT_JUDGED, result.infra_error)
                else:
                    verdicts[pair] = PairVerdict(result.outcomes, VerdictSource.ORACLE)
    return verdicts


def passing_from_verdicts(query_ids: Iterable[str], verdicts: Mapping[Pair, PairVerdict]) -> dict[str, frozenset[str]]:
    """Per query, the checked snippets that pass every test."""
    passing: dict[str, set[str]] = {qid: set() for qid in query_ids}
    for (qid, cid), verdict in verdicts.items():
        if verdict.passed:
            passing.setdefault(qid, set()).add(cid)
    return {qid: frozenset(ids) for qid, ids in passing.items()}
