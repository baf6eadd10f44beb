"""The open pool's evaluation: rankings over benchmark + wild snippets -> strong verdicts -> scores.

Pairs of the top ``DEPTH`` (whole tie groups) are judged by origin:

- a benchmark snippet, exactly as on the closed task (``verdicts.check_pairs``: dataset cache,
  static proof, local cache, oracle): its label is the closed one;
- a wild snippet by the stronger judge (``open_judge``): its function bound to the target, the
  query's tests, then, if it passes them, the query's reference on the validation inputs. Every
  such pair is executed (or read from the oracle's cache); nothing is decided statically.

Per query, the passing set is the benchmark snippets that pass and the wild functions judged
correct; exec@k, execution_precision@k and nDCG@k are then computed exactly as on the closed
task. ``tests_only`` scores the same rankings as if passing the tests were enough: the difference
is how often the tests alone would have been fooled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..dataset.release import dataset_revision
from ..dataset.wild import OpenPool
from ..oracle.api import Oracle
from .metric_names import DEPTH, K_VALUES
from .model_report import ModelIdentity, ModelReport
from .open_judge import Candidate, StrongVerdict, WildJudgement, bound_program, judge
from .ranking import Ranking
from .scoring import PerQueryScores, score_rankings
from .verdicts import CheckedPairs, check_pairs, passing_from_verdicts

Pair = tuple[str, str]
_EMPTY = Ranking(groups=())


@dataclass(frozen=True)
class OpenEvaluation:
    report: ModelReport
    """Scores with the strong judge (the open task's numbers)."""
    closed_checked: CheckedPairs
    wild: Mapping[Pair, StrongVerdict]
    tests_only: PerQueryScores
    """The same rankings scored as if passing the tests made a wild function correct."""

    def wild_counts(self) -> dict[WildJudgement, int]:
        counts = dict.fromkeys(WildJudgement, 0)
        for verdict in self.wild.values():
            counts[verdict.judgement] += 1
        return counts


def judge_wild_pairs(pool: OpenPool, pairs: list[Pair], oracle: Oracle) -> dict[Pair, StrongVerdict]:
    """The strong verdict of every (query, wild snippet) pair."""
    tests = {q.query_id: tuple(q.test_suite) for q in pool.closed.queries}
    target = {q.query_id: q.function_name or "" for q in pool.closed.queries}
    candidates = [
        Candidate(pair, bound_program(pool.wild[pair[1]].code, pool.wild[pair[1]].function_name, target[pair[0]]),
                  target[pair[0]])
        for pair in pairs
    ]
    return judge(candidates, tests, pool.validation, oracle)


def evaluate_open_rankings(
    pool: OpenPool,
    model: ModelIdentity,
    rankings: Mapping[str, Ranking],
    *,
    workers: int | None = None,
    progress: bool = False,
    oracle_cache: Path | None = None,
) -> OpenEvaluation:
    query_ids = tuple(q.query_id for q in pool.closed.queries)
    kept = {qid: Ranking(groups=tuple(rankings.get(qid, _EMPTY).groups_within(DEPTH))) for qid in query_ids}
    pairs = list(dict.fromkeys((qid, cid) for qid in query_ids for cid in kept[qid].candidates(DEPTH)))
    wild_pairs = [p for p in pairs if p[1] in pool.wild]
    closed_pairs = [p for p in pairs if p[1] not in pool.wild]
    closed = check_pairs(pool.closed, closed_pairs, workers=workers, progress=progress, oracle_cache=oracle_cache)
    wild: dict[Pair, StrongVerdict] = {}
    if wild_pairs:
        with Oracle(workers=workers, cache=oracle_cache) as oracle:
            wild = judge_wild_pairs(pool, wild_pairs, oracle)
    base = passing_from_verdicts(query_ids, closed.verdicts)
    strong = {qid: set(ids) for qid, ids in base.items()}
    loose = {qid: set(ids) for qid, ids in base.items()}
    for (qid, cid), verdict in wild.items():
        if verdict.passed:
            strong[qid].add(cid)
        if verdict.passes_tests:
            loose[qid].add(cid)
    relevant = {q.query_id: frozenset(q.correct_corpus_ids) for q in pool.closed.queries}
    passing = {qid: frozenset(ids) for qid, ids in strong.items()}
    scores = score_rankings(query_ids, kept, passing, relevant, K_VALUES)
    tests_only = score_rankings(query_ids, kept, {q: frozenset(v) for q, v in loose.items()}, relevant, K_VALUES)
    report = ModelReport(model=model, dataset_fingerprint=pool.fingerprint,
                         dataset_revision=dataset_revision(pool.fingerprint), query_ids=query_ids, scores=scores,
                         rankings=kept, passing=passing)
    return OpenEvaluation(report, closed, wild, tests_only)
