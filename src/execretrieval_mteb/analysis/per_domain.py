"""Per-domain exec@k: each model's mean over the queries of each domain, and the mean across models.

The domain mean across models (each model weighing the same) says which kind of task is hard for
everyone (the study: date_time, mean exec@1 0.091 across its systems); a model's own row says where
it is weak. Every number carries a 95 % percentile bootstrap interval over the domain's queries
(about 100 per domain, so intervals are wide: resampled as in ``bootstrap``, 5,000 times, the
domain's own fixed-seed stream); the mean across models is resampled per query (each query's mean
over the models), so its interval says how much the hardest domain depends on the tasks drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.metric_names import K_VALUES, Metric
from .bootstrap import percentile_interval, replicate_means, resample_counts
from .config import StatsConfig
from .family import Families
from .score_matrix import ScoreMatrix

Bounds = tuple[float, float]


@dataclass(frozen=True)
class PerDomain:
    domains: tuple[str, ...]
    queries: dict[str, int]
    metrics: tuple[str, ...]
    by_model: dict[str, dict[str, dict[str, float]]]
    """model -> domain -> metric -> mean."""
    across_models: dict[str, dict[str, float]]
    """domain -> metric -> mean of the models' means."""
    by_model_ci: dict[str, dict[str, dict[str, Bounds]]]
    """model -> domain -> metric -> 95 % bootstrap interval."""
    across_models_ci: dict[str, dict[str, Bounds]]

    def hardest(self, metric: str) -> str | None:
        if not self.domains:
            return None
        return min(self.domains, key=lambda d: (self.across_models[d][metric], d))

    def to_json(self) -> dict[str, Any]:
        def with_ci(means: dict[str, float], cis: dict[str, Bounds]) -> dict[str, Any]:
            return {k: {"mean": v, "ci95_low": cis[k][0], "ci95_high": cis[k][1]} for k, v in means.items()}

        return {"queries": self.queries,
                "by_model": {m: {d: with_ci(v, self.by_model_ci[m][d]) for d, v in per.items()} for m, per in self.by_model.items()},
                "across_models": {d: with_ci(v, self.across_models_ci[d]) for d, v in self.across_models.items()},
                "hardest_by_exec_at_1": self.hardest(Metric.EXEC.key(1))}


def per_domain(scores: ScoreMatrix, families: Families, config: StatsConfig = StatsConfig()) -> PerDomain:
    metric_index = [scores.metrics.index(Metric.EXEC.key(k)) for k in K_VALUES if Metric.EXEC.key(k) in scores.metrics]
    metrics = tuple(scores.metrics[m] for m in metric_index)
    domain_of = dict(zip(families.query_ids, families.domains, strict=True))
    domain = np.array([domain_of[q] for q in scores.query_ids], dtype=object)
    domains = tuple(sorted(set(domain)))
    by_model: dict[str, dict[str, dict[str, float]]] = {m: {} for m in scores.models}
    by_model_ci: dict[str, dict[str, dict[str, Bounds]]] = {m: {} for m in scores.models}
    across: dict[str, dict[str, float]] = {}
    across_ci: dict[str, dict[str, Bounds]] = {}
    n_models = len(scores.models)
    for index, d in enumerate(domains):
        values = scores.values[domain == d][:, :, metric_index]  # (queries, models, metrics)
        means = values.mean(axis=0)
        columns = np.concatenate([values.reshape(values.shape[0], -1), values.mean(axis=1)], axis=1)
        counts = resample_counts(values.shape[0], config.bootstrap_replicates, config.bootstrap_seed + 100 + index)
        low, high = percentile_interval(replicate_means(counts, columns), config.confidence)
        for a, model in enumerate(scores.models):
            by_model[model][d] = {key: float(means[a, x]) for x, key in enumerate(metrics)}
            by_model_ci[model][d] = {key: (float(low[a * len(metrics) + x]), float(high[a * len(metrics) + x]))
                                     for x, key in enumerate(metrics)}
        across[d] = {key: float(means[:, x].mean()) for x, key in enumerate(metrics)}
        across_ci[d] = {key: (float(low[n_models * len(metrics) + x]), float(high[n_models * len(metrics) + x]))
                        for x, key in enumerate(metrics)}
    return PerDomain(domains, {d: int(np.sum(domain == d)) for d in domains}, metrics, by_model, across, by_model_ci, across_ci)
