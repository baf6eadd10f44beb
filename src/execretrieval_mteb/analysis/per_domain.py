"""Per-domain exec@k: each model's mean over the queries of each domain, and the mean across models.

The domain mean across models (each model weighing the same) says which kind of task is hard for
everyone (the study: date_time, mean exec@1 0.091 across its systems); a model's own row says where
it is weak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.metric_names import K_VALUES, Metric
from .family import Families
from .score_matrix import ScoreMatrix


@dataclass(frozen=True)
class PerDomain:
    domains: tuple[str, ...]
    queries: dict[str, int]
    metrics: tuple[str, ...]
    by_model: dict[str, dict[str, dict[str, float]]]
    """model -> domain -> metric -> mean."""
    across_models: dict[str, dict[str, float]]
    """domain -> metric -> mean of the models' means."""

    def hardest(self, metric: str) -> str | None:
        if not self.domains:
            return None
        return min(self.domains, key=lambda d: (self.across_models[d][metric], d))

    def to_json(self) -> dict[str, Any]:
        return {"queries": self.queries, "by_model": self.by_model, "across_models": self.across_models,
                "hardest_by_exec_at_1": self.hardest(Metric.EXEC.key(1))}


def per_domain(scores: ScoreMatrix, families: Families) -> PerDomain:
    metric_index = [scores.metrics.index(Metric.EXEC.key(k)) for k in K_VALUES if Metric.EXEC.key(k) in scores.metrics]
    metrics = tuple(scores.metrics[m] for m in metric_index)
    domain_of = dict(zip(families.query_ids, families.domains, strict=True))
    domain = np.array([domain_of[q] for q in scores.query_ids], dtype=object)
    domains = tuple(sorted(set(domain)))
    by_model: dict[str, dict[str, dict[str, float]]] = {m: {} for m in scores.models}
    across: dict[str, dict[str, float]] = {}
    for d in domains:
        rows = domain == d
        means = scores.values[rows][:, :, metric_index].mean(axis=0)  # (models, metrics)
        for a, model in enumerate(scores.models):
            by_model[model][d] = {key: float(means[a, x]) for x, key in enumerate(metrics)}
        across[d] = {key: float(means[:, x].mean()) for x, key in enumerate(metrics)}
    return PerDomain(domains, {d: int(np.sum(domain == d)) for d in domains}, metrics, by_model, across)
