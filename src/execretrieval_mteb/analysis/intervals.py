"""95 % percentile bootstrap interval of each model's mean on each metric.

``mean`` is the model's score over all n queries (the leaderboard's number); the interval is the
2.5th and 97.5th percentiles of the mean over 5,000 resamples of the queries (``bootstrap``), drawn
with a fixed seed. It says how much the score would move on another draw of tasks like these; it
says nothing about a different kind of task.

``confidence_intervals.json`` (the study's shape)::

    {model: {metric: {mean, ci95_low, ci95_high, n, bootstrap_samples, seed}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bootstrap import percentile_interval
from .config import StatsConfig
from .score_matrix import ScoreMatrix


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int | None = None
    replicates: int | None = None
    seed: int | None = None
    """Queries, bootstrap replicates and seed it was computed with (None where only the bounds were kept,
    as in a leaderboard row file)."""

    def format(self, digits: int = 3) -> str:
        """e.g. ``0.093 [0.076, 0.111]``."""
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95_low": self.low, "ci95_high": self.high, "n": self.n,
                "bootstrap_samples": self.replicates, "seed": self.seed}

    @staticmethod
    def from_json(blob: Mapping[str, Any]) -> Interval:
        """The inverse of ``to_json`` (a ``confidence_intervals.json`` entry)."""
        def optional(key: str) -> int | None:
            return None if blob.get(key) is None else int(blob[key])

        return Interval(float(blob["mean"]), float(blob["ci95_low"]), float(blob["ci95_high"]),
                        optional("n"), optional("bootstrap_samples"), optional("seed"))


def model_intervals(scores: ScoreMatrix, replicates: np.ndarray, config: StatsConfig) -> dict[str, dict[str, Interval]]:
    """``replicates`` (B, n_models * n_metrics) replicate means, columns as ``ScoreMatrix.flat``."""
    low, high = percentile_interval(replicates, config.confidence)
    n_metrics = len(scores.metrics)
    out: dict[str, dict[str, Interval]] = {}
    for a, model in enumerate(scores.models):
        out[model] = {
            key: Interval(float(scores.means[a, m]), float(low[a * n_metrics + m]), float(high[a * n_metrics + m]),
                          len(scores.query_ids), config.bootstrap_replicates, config.bootstrap_seed)
            for m, key in enumerate(scores.metrics)
        }
    return out


def intervals_json(intervals: Mapping[str, Mapping[str, Interval]]) -> dict[str, Any]:
    return {model: {key: iv.to_json() for key, iv in per.items()} for model, per in intervals.items()}
