"""The fact the MTEB task rests on: every query's passing snippets are exactly its qrels.

mteb's ``ExecRetrieval`` scores exec@k as hit@k on the qrels (the canonical), with no execution
inside mteb. That equals the execution-judged exec@k only if, for every query, the snippets
recorded as passing all of its tests (the execution cache: own-test runs of every shipped snippet,
and the cross-canonical sweep's runs of every snippet defining another query's target; a pair
never run cannot pass, since it does not define the target) are exactly its
``correct_corpus_ids``. The build refuses a dataset where this does not hold: such a dataset
needs the execution-aware evaluator (``execretrieval evaluate``), not qrels.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ..errors import ExecRetrievalError
from ..oracle.outcomes import TestOutcome, code_sha256, tests_sha256


class QrelsMismatch(ExecRetrievalError):
    """Some query's passing snippets differ from its qrels; the message names the first."""


def passing_sets(
    queries: Iterable[Mapping[str, object]],
    corpus: Iterable[Mapping[str, object]],
    cache_rows: Iterable[Mapping[str, object]],
) -> dict[str, frozenset[str]]:
    """Per query id, the corpus ids the cache records as passing every one of its tests."""
    by_code: dict[str, list[str]] = defaultdict(list)
    for row in corpus:
        by_code[code_sha256(str(row["code"]))].append(str(row["corpus_id"]))
    by_tests: dict[str, list[str]] = defaultdict(list)
    passing: dict[str, set[str]] = {}
    for query in queries:
        tests = query["test_suite"]
        assert isinstance(tests, Sequence)
        by_tests[tests_sha256([str(t) for t in tests])].append(str(query["query_id"]))
        passing[str(query["query_id"])] = set()
    for row in cache_rows:
        results = row["test_results"]
        assert isinstance(results, Sequence)
        if results and all(TestOutcome.parse(str(r)).passed for r in results):
            for qid in by_tests.get(str(row["tests_sha256"]), ()):
                passing[qid].update(by_code.get(str(row["code_sha256"]), ()))
    return {qid: frozenset(ids) for qid, ids in passing.items()}


def qrels_mismatches(
    queries: Sequence[Mapping[str, object]],
    corpus: Sequence[Mapping[str, object]],
    cache_rows: Sequence[Mapping[str, object]],
) -> list[str]:
    """One line per query whose passing set is not its ``correct_corpus_ids`` (empty: the fact holds)."""
    passing = passing_sets(queries, corpus, cache_rows)
    problems = []
    for query in queries:
        qid = str(query["query_id"])
        correct = query["correct_corpus_ids"]
        assert isinstance(correct, Sequence)
        expected = frozenset(str(c) for c in correct)
        if passing[qid] != expected:
            extra, missing = sorted(passing[qid] - expected), sorted(expected - passing[qid])
            problems.append(f"{qid}: passing but not in qrels {extra}, in qrels but not passing {missing}")
    return problems


def require_passing_equals_qrels(
    queries: Sequence[Mapping[str, object]],
    corpus: Sequence[Mapping[str, object]],
    cache_rows: Sequence[Mapping[str, object]],
) -> None:
    """Refuse (``QrelsMismatch``) a dataset where some query's passing set is not its qrels."""
    problems = qrels_mismatches(queries, corpus, cache_rows)
    if problems:
        raise QrelsMismatch(
            f"{len(problems)} queries' passing snippets differ from their qrels (first: {problems[0]}); mteb's "
            "ExecRetrieval scores qrels, so this dataset needs the execution-aware evaluator; fix the tasks so "
            "that only each canonical passes its tests"
        )
