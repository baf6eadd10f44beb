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

from collections.abc import Mapping, Sequence

from ..dataset.passing import passing_sets
from ..errors import ExecRetrievalError
from ..oracle.outcomes import TestOutcome


class QrelsMismatch(ExecRetrievalError):
    """Some query's passing snippets differ from its qrels; the message names the first."""


def qrels_mismatches(
    queries: Sequence[Mapping[str, object]],
    corpus: Sequence[Mapping[str, object]],
    cache_rows: Sequence[Mapping[str, object]],
) -> list[str]:
    """One line per query whose passing set is not its ``correct_corpus_ids`` (empty: the fact holds)."""
    passing = passing_sets(
        ((str(c["corpus_id"]), str(c["code"])) for c in corpus),
        ((str(q["query_id"]), [str(t) for t in q["test_suite"]]) for q in queries),  # type: ignore[attr-defined]
        ((str(r["code_sha256"]), str(r["tests_sha256"]),
          bool(r["test_results"]) and all(TestOutcome.parse(str(t)).passed for t in r["test_results"]))  # type: ignore[attr-defined]
         for r in cache_rows),
    )
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
