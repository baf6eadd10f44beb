"""Which (query, snippet) pairs pass all of the query's tests, and how each verdict was reached.

In order, cheapest first:

1. the dataset's ``execution_cache.jsonl`` (per-test outcomes keyed by code and tests sha256);
2. a static proof that the snippet never binds the function the tests call (``static_proof``):
   almost every pair in a model's top k is a snippet of another task, and this decides it as
   failing without running it;
3. the oracle's local cache (``oracle-cache.sqlite`` in the results folder), then the sandboxed
   oracle itself for whatever is left.

Inside MTEB's process nothing runs at all: mteb's task scores the qrels, which the build proves
equal to every query's passing set by the cache (``construction.qrels_check``). A pair the
oracle could not judge (an infrastructure error, after its retry) is ``NOT_JUDGED``: it counts as
not passing, is never cached, and is reported.
"""

from __future__ import annotations

import enum
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..dataset.passing import passing_sets
from ..errors import ExecRetrievalError
from ..oracle.api import Oracle
from ..oracle.outcomes import Suite, TestOutcome, code_sha256, passes_all, tests_sha256
from .static_proof import proves_unbound


class VerdictSource(enum.Enum):
    DATASET_CACHE = "dataset_cache"
    STATIC_UNBOUND = "static_unbound"
    LOCAL_CACHE = "local_cache"
    ORACLE = "oracle"
    NOT_JUDGED = "not_judged"  # the oracle's harness failed on it (``PairVerdict.infra_error``)


@dataclass(frozen=True)
class PairVerdict:
    """Per-test outcomes of one snippet against one query's tests, and where they came from.

    A ``STATIC_UNBOUND`` or ``NOT_JUDGED`` verdict has no outcomes and does not pass (``passes_all``).
    """

    outcomes: tuple[TestOutcome, ...]
    source: VerdictSource
    infra_error: str | None = None

    @property
    def passed(self) -> bool:
        return passes_all(self.outcomes)


Pair = tuple[str, str]  # (query_id, corpus_id)
_STATIC = PairVerdict((), VerdictSource.STATIC_UNBOUND)


@dataclass(frozen=True)
class CheckedPairs:
    """Every requested pair's verdict, and how many distinct pairs each source decided."""

    verdicts: Mapping[Pair, PairVerdict]

    def counts(self) -> dict[VerdictSource, int]:
        tally = Counter(v.source for v in self.verdicts.values())
        return {source: tally.get(source, 0) for source in VerdictSource}


def passing_from_cache(dataset: BuiltDataset) -> dict[str, frozenset[str]]:
    """For each query, the snippets the cache records as passing every test (absent pairs fail)."""
    return passing_sets(
        ((c.corpus_id, c.code) for c in dataset.corpus),
        ((q.query_id, q.test_suite) for q in dataset.queries),
        ((code, tests, passes_all(out)) for (code, tests), out in dataset.execution_cache.items()),
    )


def check_pairs(
    dataset: BuiltDataset,
    pairs: Iterable[Pair],
    *,
    workers: int | None = None,
    progress: bool = False,
    oracle_cache: Path | None = None,
) -> CheckedPairs:
    """The verdict of every pair: dataset cache, static proof, local cache, then the oracle
    (once per distinct suite)."""
    code = {c.corpus_id: c.code for c in dataset.corpus}
    tests = {q.query_id: q.test_suite for q in dataset.queries}
    code_keys = {cid: code_sha256(text) for cid, text in code.items()}
    test_keys = {qid: tests_sha256(suite) for qid, suite in tests.items()}
    verdicts: dict[Pair, PairVerdict] = {}
    missing: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    suites: dict[tuple[str, str], Suite] = {}
    for pair in dict.fromkeys(pairs):
        qid, cid = pair
        if qid not in tests or cid not in code:
            raise ExecRetrievalError(f"prediction names query {qid!r} / snippet {cid!r}, absent from {dataset.root}")
        key = (code_keys[cid], test_keys[qid])
        cached = dataset.execution_cache.get(key)
        if cached is not None:
            verdicts[pair] = PairVerdict(cached, VerdictSource.DATASET_CACHE)
        elif proves_unbound(code[cid], tests[qid]):
            verdicts[pair] = _STATIC
        else:
            missing[key].append(pair)
            suites.setdefault(key, Suite(code[cid], tuple(tests[qid])))
    if suites:
        keys = list(suites)
        with Oracle(workers=workers, cache=oracle_cache) as oracle:
            hits: Collection[tuple[str, str]] = ()
            if oracle.cache is not None:  # which verdicts the local cache already holds, for the report
                hits = oracle.cache.get_many(keys, oracle.salt, at_least=oracle.protections).keys()
            results = oracle.run([suites[k] for k in keys], progress=progress)
        for key, result in zip(keys, results, strict=True):
            if result.infra_error is not None:
                verdict = PairVerdict((), VerdictSource.NOT_JUDGED, result.infra_error)
            else:
                source = VerdictSource.LOCAL_CACHE if key in hits else VerdictSource.ORACLE
                verdict = PairVerdict(result.outcomes, source)
            for pair in missing[key]:
                verdicts[pair] = verdict
    return CheckedPairs(verdicts)


def passing_from_verdicts(query_ids: Iterable[str], verdicts: Mapping[Pair, PairVerdict]) -> dict[str, frozenset[str]]:
    """Per query, the checked snippets that pass every test."""
    passing: dict[str, set[str]] = {qid: set() for qid in query_ids}
    for (qid, cid), verdict in verdicts.items():
        if verdict.passed:
            passing.setdefault(qid, set()).add(cid)
    return {qid: frozenset(ids) for qid, ids in passing.items()}
