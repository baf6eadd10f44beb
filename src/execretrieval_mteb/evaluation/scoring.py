"""Every metric for every query, and their unweighted means over queries.

Per-query values are kept (not only means) so that bootstrap intervals, paired tests and the
analyses can resample or pair queries later without re-ranking anything.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from .exec_at_k import expected_exec_at_k
from .execution_precision import expected_execution_precision_at_k
from .metric_names import K_VALUES, Metric
from .ndcg import expected_ndcg_at_k
from .ranking import Ranking

_EMPTY = Ranking(groups=())


@dataclass(frozen=True)
class PerQueryScores:
    """``values[metric key][query id]``: one number per query for each metric and k."""

    query_ids: tuple[str, ...]
    values: Mapping[str, Mapping[str, float]]

    def means(self) -> dict[str, float]:
        """Unweighted mean over queries of each metric (0.0 when there are no queries)."""
        n = len(self.query_ids)
        return {key: (sum(per_query.values()) / n if n else 0.0) for key, per_query in self.values.items()}


def score_rankings(
    query_ids: Iterable[str],
    rankings: Mapping[str, Ranking],
    passing: Mapping[str, Collection[str]],
    relevant: Mapping[str, Collection[str]],
    k_values: Iterable[int] = K_VALUES,
) -> PerQueryScores:
    """Expected exec@k, execution_precision@k and nDCG@k per query; a query with no ranking scores 0."""
    ids = tuple(query_ids)
    ks = tuple(k_values)
    values: dict[str, dict[str, float]] = {m.key(k): {} for m in Metric for k in ks}
    for qid in ids:
        ranking = rankings.get(qid, _EMPTY)
        ok = passing.get(qid, frozenset())
        rel = relevant.get(qid, frozenset())
        for k in ks:
            values[Metric.EXEC.key(k)][qid] = expected_exec_at_k(ranking, ok, k)
            values[Metric.EXECUTION_PRECISION.key(k)][qid] = expected_execution_precision_at_k(ranking, ok, k)
            values[Metric.NDCG.key(k)][qid] = expected_ndcg_at_k(ranking, rel, k)
    return PerQueryScores(query_ids=ids, values=values)
