"""Leaderboard rows with intervals, and whether each row differs significantly from the one above.

A row "differs from the row above" when the paired test of the two models on exec@1 (McNemar, or
the sign-flip test under ties, see ``pairwise``) has a Holm-adjusted p-value below ``alpha`` (0.05),
the adjustment running over all pairs of models on exec@1. Adjacent rows that do not differ are
not a ranking, only an ordering of point estimates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..evaluation.metric_names import MAIN_SCORE
from ..evaluation.model_report import ModelReport
from .config import StatsConfig
from .intervals import Interval
from .pairwise import PairResult
from .statistics import Statistics, compute_statistics


@dataclass(frozen=True)
class IntervalRow:
    model: str
    intervals: Mapping[str, Interval]
    """metric key -> mean with its 95 % interval (``Interval.format()`` gives ``0.093 [0.076, 0.111]``)."""
    vs_above: PairResult | None
    """exec@1 test against the row above (None for the first row)."""
    alpha: float

    @property
    def differs_from_above(self) -> bool | None:
        return None if self.vs_above is None else self.vs_above.p_holm < self.alpha


def interval_rows(statistics: Statistics, alpha: float | None = None) -> list[IntervalRow]:
    """Rows in leaderboard order."""
    alpha = statistics.config.alpha if alpha is None else alpha
    models = statistics.scores.models
    rows = []
    for position, model in enumerate(models):
        above = statistics.pair(models[position - 1], model, MAIN_SCORE) if position else None
        rows.append(IntervalRow(model, statistics.intervals[model], above, alpha))
    return rows


def leaderboard_rows(reports: Sequence[ModelReport], config: StatsConfig = StatsConfig()) -> list[IntervalRow]:
    """For the leaderboard printer: each model's intervals and its significance flag against the row above."""
    return interval_rows(compute_statistics(reports, config))
