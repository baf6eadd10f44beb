"""Every model's per-query value of every metric as one array, models in leaderboard order.

The statistics resample and pair queries, so they need all models' values over the same queries
in the same order: ``values[i, a, m]`` is query ``query_ids[i]``, model ``models[a]``, metric
``metrics[m]`` (keys of ``evaluation.metric_names``: every ``Metric`` at every k of ``K_VALUES``
that all reports hold). ``means`` are the reports' own means (``PerQueryScores.means``), so an
interval's centre is exactly the leaderboard's number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..evaluation.metric_names import K_VALUES, Metric
from ..evaluation.model_report import ModelReport
from ..evaluation.standing import in_standing_order


def leaderboard_order(reports: Sequence[ModelReport]) -> list[ModelReport]:
    """Reports in leaderboard order (``evaluation.standing``: best exec@1 first, then exec@3, ...)."""
    names = [r.model.name for r in reports]
    if len(set(names)) != len(names):
        duplicated = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"two reports for the same model name: {duplicated}; analyses key everything by model name")
    return in_standing_order(reports, lambda r: r.model.name, lambda r: r.means())


@dataclass(frozen=True)
class ScoreMatrix:
    models: tuple[str, ...]
    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    values: np.ndarray
    """(n_queries, n_models, n_metrics) float64."""
    means: np.ndarray
    """(n_models, n_metrics): each report's own mean."""

    @classmethod
    def from_reports(cls, reports: Sequence[ModelReport], query_ids: Sequence[str] | None = None) -> ScoreMatrix:
        ordered = leaderboard_order(reports)
        if query_ids is None:
            query_ids = ordered[0].query_ids if ordered else ()
        wanted = set(query_ids)
        for report in ordered:
            if set(report.query_ids) != wanted:
                raise ValueError(
                    f"{report.model.name}: evaluated on {len(report.query_ids)} queries, not the same "
                    f"{len(wanted)} as the others; paired statistics need every model on the same queries"
                )
        candidates = [m.key(k) for m in Metric for k in K_VALUES]
        metrics = tuple(key for key in candidates if all(key in r.scores.values for r in ordered))
        values = np.empty((len(query_ids), len(ordered), len(metrics)))
        means = np.empty((len(ordered), len(metrics)))
        for a, report in enumerate(ordered):
            report_means = report.means()
            for m, key in enumerate(metrics):
                per_query = report.scores.values[key]
                values[:, a, m] = [per_query[qid] for qid in query_ids]
                means[a, m] = report_means[key]
        return cls(tuple(r.model.name for r in ordered), metrics, tuple(query_ids), values, means)

    @property
    def flat(self) -> np.ndarray:
        """(n_queries, n_models * n_metrics), column ``a * n_metrics + m``."""
        n = self.values.shape[0]
        return self.values.reshape(n, -1)

    def is_binary(self) -> np.ndarray:
        """(n_models, n_metrics): every per-query value is exactly 0 or 1."""
        return np.all((self.values == 0.0) | (self.values == 1.0), axis=0)
