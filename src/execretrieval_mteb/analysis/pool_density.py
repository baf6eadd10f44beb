"""Pool-density ablation: exact expected exec@1 when each query keeps only d of its own mutants.

For a query, remove all but d of its own mutants from the pool (the rest of the corpus, including
every other task's snippets, stays) and take the expectation of exec@1 over all ``C(m, d)`` choices
of the kept mutants (m = the family's mutants; a family with fewer than d keeps them all). exec@1 is
decided by the rank-1 tie group of the reduced pool: with top score ``M``, ``g`` snippets scoring
``M`` and ``p`` of them passing, it is (as in ``evaluation.exec_at_k``)::

    exec@1 = 0 if p = 0;  1 if g = 1;  1 - (g - p) / g otherwise

The rank-1 group is the best of the canonical, the kept mutants and the rest of the corpus's best
tie group (score ``s_out``, ``t_out`` snippets, ``p_out`` passing, passes from the report's
verdicts). Only family members scoring at least ``s_out`` matter, and they all sit in whole tie
groups no deeper than rank 5 of the full ranking, so the rankings alone decide every query (it is
"not computable" only when a ranking lists no snippet outside the family in a whole tie group).

With d = 4 the pool is the benchmark's, and the result equals the leaderboard's exec@1 exactly:
the per-query values come from the same formula in the same floating-point operations, and the mean
sums them in the same order as ``PerQueryScores.means`` (plain left-to-right ``sum`` over the
report's query order, divided by the number of queries).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.metric_names import K_VALUES, MAIN_SCORE
from ..evaluation.model_report import ModelReport
from .family import Families


@dataclass(frozen=True)
class PoolDensity:
    densities: tuple[int, ...]
    expected_exec_at_1: tuple[float | None, ...]
    per_query: np.ndarray
    """(n_queries, len(densities)), NaN where not computable."""
    not_computable: tuple[str, ...]
    leaderboard_exec_at_1: float

    @property
    def matches_leaderboard(self) -> bool:
        return self.expected_exec_at_1[-1] == self.leaderboard_exec_at_1

    def to_json(self) -> dict[str, Any]:
        return {
            "d": list(self.densities), "expected_exec_at_1": list(self.expected_exec_at_1),
            "queries_computable": int(self.per_query.shape[0] - len(self.not_computable)),
            "not_computable": list(self.not_computable),
            "leaderboard_exec_at_1": self.leaderboard_exec_at_1, "full_pool_matches_leaderboard": self.matches_leaderboard,
        }


def _rank1_inputs(report: ModelReport, families: Families) -> tuple[np.ndarray, ...]:
    """Per query: relevant member scores (-inf when below the rest's best), their passes, and the rest's best group."""
    n, width = families.size, families.width
    canon = np.full(n, -np.inf)
    canon_pass = np.zeros(n, dtype=bool)
    muts = np.full((n, width), -np.inf)
    mut_pass = np.zeros((n, width), dtype=bool)
    s_out = np.full(n, -np.inf)
    t_out = np.zeros(n)
    p_out = np.zeros(n)
    computable = np.zeros(n, dtype=bool)
    deepest = max(K_VALUES)
    for i, qid in enumerate(families.query_ids):
        ranking = report.rankings.get(qid)
        if ranking is None:
            continue
        passing = report.passing.get(qid, frozenset())
        slot = {families.canonical_ids[i]: -1}
        slot.update({str(c): j for j, c in enumerate(families.mutant_ids[i]) if families.mutant_mask[i, j]})
        for index, group in enumerate(ranking.groups):
            outside = [cid for cid in group.ids if cid not in slot]
            for cid in group.ids:
                j = slot.get(cid)
                if j == -1:
                    canon[i], canon_pass[i] = group.score, cid in passing
                elif j is not None:
                    muts[i, j], mut_pass[i, j] = group.score, cid in passing
            if outside:
                whole = group.start < deepest or index < len(ranking.groups) - 1
                computable[i] = whole
                s_out[i], t_out[i] = group.score, len(outside)
                p_out[i] = sum(1 for cid in outside if cid in passing)
                break
    return canon, canon_pass, muts, mut_pass, s_out, t_out, p_out, computable


def _exec_at_1(g: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``evaluation.exec_at_k`` at k = 1 on a rank-1 group of g snippets, p passing (same float operations)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p == 0, 0.0, np.where(g == 1, 1.0, 1.0 - (g - p) / g))


def pool_density(report: ModelReport, families: Families) -> PoolDensity:
    canon, canon_pass, muts, mut_pass, s_out, t_out, p_out, computable = _rank1_inputs(report, families)
    n, width = families.size, families.width
    real = families.mutant_mask
    n_real = real.sum(axis=1)
    sums = np.zeros((n, width + 1))
    counts = np.zeros((n, width + 1))
    for kept in itertools.product((False, True), repeat=width):
        keep = np.array(kept, dtype=bool)
        valid = np.all(real[:, keep], axis=1)  # every kept slot is a real mutant
        size = int(keep.sum())
        kept_scores = np.where(keep, muts, -np.inf)
        top = np.maximum(np.maximum(canon, kept_scores.max(axis=1, initial=-np.inf)), s_out)
        at_top = kept_scores == top[:, None]
        g = (canon == top) + at_top.sum(axis=1) + t_out * (s_out == top)
        p = (canon == top) & canon_pass
        p = p + (at_top & mut_pass).sum(axis=1) + p_out * (s_out == top)
        value = _exec_at_1(g.astype(float), p.astype(float))
        sums[valid, size] += value[valid]
        counts[valid, size] += 1
        full = valid & (n_real == size)  # a family with fewer than d mutants keeps them all for every larger d
        for d in range(size + 1, width + 1):
            sums[full, d] += value[full]
            counts[full, d] += 1
    per_query = np.where(computable[:, None], sums / np.maximum(counts, 1), np.nan)
    row = families.index()
    order = [row[qid] for qid in report.scores.values[MAIN_SCORE]]
    means: list[float | None] = []
    for d in range(width + 1):
        values = [float(per_query[i, d]) for i in order if computable[i]]
        means.append(sum(values) / len(values) if values else None)
    not_computable = tuple(families.query_ids[i] for i in range(n) if not computable[i])
    return PoolDensity(tuple(range(width + 1)), tuple(means), per_query, not_computable, report.means()[MAIN_SCORE])
