"""Stacked mutations: are composed edits (2-4 line-disjoint single edits, execution-verified) more
or less deceptive than single edits?

The build keeps stacked mutants out of the benchmark's corpus (``data/stacked_mutants.jsonl``); a
run on request scores every query against them, per model, as a ``StackedScores`` matrix. A
stacked mutant belongs to the query whose ``entry_id`` is its ``source_entry_id``, and the triple
(query, stacked mutant, model) is deceived when::

    score(q, stacked mutant) >= score(q, canonical)

with the canonical's score from the same model's ``FamilyScores`` (an unlisted canonical scores at
most the ranking's lowest listed score, which decides every stacked mutant scoring at least that).

The study's design: only queries with a decided variant at every number of edits (1 = the query's
own single mutants, 2, 3, 4) are compared; per query and count, the mean deceived indicator over
its variants of that count; per model, the mean over those queries; pooled, the mean over the
models (dense ones, on the queries complete for all of them), i.e. per query first, then over
models. The difference of each count from single edits::

    delta_k = mean_q dec_k(q) - mean_q dec_1(q)

gets a 95 % percentile bootstrap interval over the queries (5,000 replicates, fixed seed): the
study found no drop distinguishable from zero (-0.7 [-2.1, +0.6] points at 2 edits).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .bootstrap import percentile_interval, replicate_means, resample_counts
from .config import StatsConfig
from .family import Families
from .family_scores import FamilyScores

NOT_COMPUTED = "not computed: run with stacked mutants"


@dataclass(frozen=True)
class StackedScores:
    """One model's ``matrix[i, j]`` = score of stacked mutant ``corpus_ids[j]`` for ``query_ids[i]``."""

    query_ids: tuple[str, ...]
    corpus_ids: tuple[str, ...]
    matrix: np.ndarray
    source_entry_ids: tuple[str, ...]
    """Per stacked mutant: the task (query ``entry_id``) it was composed from."""
    n_edits: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.matrix.shape != (len(self.query_ids), len(self.corpus_ids)):
            raise ValueError(f"StackedScores: matrix shape {self.matrix.shape} does not match "
                             f"{len(self.query_ids)} queries x {len(self.corpus_ids)} stacked mutants")
        if not len(self.source_entry_ids) == len(self.n_edits) == len(self.corpus_ids):
            raise ValueError("StackedScores: source_entry_ids and n_edits need one entry per stacked mutant")


@dataclass(frozen=True)
class StackedDeception:
    models: tuple[str, ...]
    counts: tuple[int, ...]
    """Numbers of edits compared, 1 (single edits) first."""
    queries: int
    """Queries with a decided variant at every count (the compared population)."""
    rates: dict[int, float | None]
    deltas: dict[int, tuple[float, float, float] | None]
    """count -> (delta, ci95_low, ci95_high) against single edits, as shares (x 100 for points)."""
    variants: int
    """Stacked variants of the compared queries (summed over the models)."""
    unmatched: int
    """Stacked mutants whose task has no query in the scored set."""

    def to_json(self) -> dict[str, Any]:
        return {"models": list(self.models), "queries_with_every_count": self.queries, "variants": self.variants,
                "unmatched": self.unmatched,
                "deception_by_edits": {str(k): self.rates[k] for k in self.counts},
                "delta_vs_single": {str(k): None if self.deltas[k] is None else
                                    {"delta": self.deltas[k][0], "ci95_low": self.deltas[k][1], "ci95_high": self.deltas[k][2]}
                                    for k in self.counts[1:]}}


@dataclass(frozen=True)
class StackedPerQuery:
    """One model: per query and number of edits, the mean deceived indicator (NaN: none decided)."""

    counts: tuple[int, ...]
    values: np.ndarray
    """(n_queries, len(counts))."""
    variants: np.ndarray
    """(n_queries,) stacked variants decided per query."""
    unmatched: int


def stacked_per_query(stacked: StackedScores, scores: FamilyScores, families: Families) -> StackedPerQuery:
    family_row = {entry: i for i, entry in enumerate(families.entry_ids)}
    matrix_row = {qid: i for i, qid in enumerate(stacked.query_ids)}
    rows, cols, fams = [], [], []
    for j, entry in enumerate(stacked.source_entry_ids):
        i = family_row.get(entry)
        if i is not None and families.query_ids[i] in matrix_row:
            rows.append(matrix_row[families.query_ids[i]])
            cols.append(j)
            fams.append(i)
    fam = np.array(fams, dtype=np.int64)
    s = stacked.matrix[np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)].astype(np.float64)
    c, bound = scores.canonical[fam], scores.bound[fam]
    deceived = np.where(~np.isnan(c), (s >= c).astype(float), np.where(s >= bound, 1.0, np.nan))
    edits = np.array(stacked.n_edits, dtype=np.int64)[np.array(cols, dtype=np.int64)]
    counts = (1, *sorted({int(k) for k in edits}))
    values = np.full((families.size, len(counts)), np.nan)
    with np.errstate(invalid="ignore"):
        values[:, 0] = np.nanmean(np.where(families.mutant_mask, scores.deceived(), np.nan), axis=1)
    known = ~np.isnan(deceived)
    variants = np.zeros(families.size)
    for x, k in enumerate(counts[1:], 1):
        chosen = (edits == k) & known
        total = np.bincount(fam[chosen], weights=deceived[chosen], minlength=families.size)
        n = np.bincount(fam[chosen], minlength=families.size)
        values[:, x] = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        variants += n
    return StackedPerQuery(counts, values, variants, len(stacked.source_entry_ids) - len(cols))


def stacked_deception(per_model: dict[str, StackedPerQuery], config: StatsConfig) -> StackedDeception:
    """The study's comparison over the given models (one, or the dense ones pooled)."""
    models = tuple(per_model)
    counts = tuple(sorted(set.intersection(*(set(p.counts) for p in per_model.values()))))
    cube = np.stack([p.values[:, [p.counts.index(k) for k in counts]] for p in per_model.values()])  # (models, n, K)
    complete = ~np.isnan(cube).any(axis=(0, 2))
    per_query = cube[:, complete].mean(axis=0)  # (q, K): over models
    q = per_query.shape[0]
    variants = int(sum(p.variants[complete].sum() for p in per_model.values()))
    unmatched = sum(p.unmatched for p in per_model.values())
    if q == 0 or len(counts) < 2:
        return StackedDeception(models, counts, q, dict.fromkeys(counts), dict.fromkeys(counts[1:]), variants, unmatched)
    rates = {k: float(per_query[:, x].mean()) for x, k in enumerate(counts)}
    differences = per_query[:, 1:] - per_query[:, :1]
    replicates = replicate_means(resample_counts(q, config.bootstrap_replicates, config.bootstrap_seed + 200), differences)
    low, high = percentile_interval(replicates, config.confidence)
    deltas = {k: (float(differences[:, x].mean()), float(low[x]), float(high[x])) for x, k in enumerate(counts[1:])}
    return StackedDeception(models, counts, q, rates, deltas, variants, unmatched)
