"""Intervals and pairwise tests of a set of models, from one shared bootstrap draw.

One (B x n) resample-count matrix gives every replicate mean of every model and metric in one
product (``bootstrap``); the intervals (``intervals``) and the paired-bootstrap intervals of
differences (``pairwise``) are read off those replicate means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..evaluation.metric_names import MAIN_SCORE
from ..evaluation.model_report import ModelReport
from .bootstrap import replicate_means, resample_counts
from .config import StatsConfig
from .intervals import Interval, model_intervals
from .pairwise import PairResult, pairwise_tests
from .score_matrix import ScoreMatrix


@dataclass(frozen=True)
class Statistics:
    scores: ScoreMatrix
    intervals: Mapping[str, Mapping[str, Interval]]
    """model -> metric key -> interval."""
    pairs: tuple[PairResult, ...]
    config: StatsConfig

    def vs_above(self, model: str, metric: str = MAIN_SCORE) -> PairResult | None:
        """The test of ``model`` against the model just above it in leaderboard order (None for the first)."""
        position = self.scores.models.index(model)
        return self.pair(self.scores.models[position - 1], model, metric) if position else None

    def pair(self, a: str, b: str, metric: str) -> PairResult | None:
        """The result for models a and b (either order; ``a`` of the result is the higher-ranked one)."""
        for result in self.pairs:
            if result.metric == metric and {result.a, result.b} == {a, b}:
                return result
        return None


def compute_statistics(reports: Sequence[ModelReport], config: StatsConfig = StatsConfig(),
                       query_ids: Sequence[str] | None = None) -> Statistics:
    scores = ScoreMatrix.from_reports(reports, query_ids)
    counts = resample_counts(len(scores.query_ids), config.bootstrap_replicates, config.bootstrap_seed)
    replicates = replicate_means(counts, scores.flat)
    return Statistics(scores, model_intervals(scores, replicates, config),
                      tuple(pairwise_tests(scores, replicates, config)), config)
