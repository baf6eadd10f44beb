"""Fixed settings of every statistic and analysis: replicate counts, seeds, levels.

Everything random here (bootstrap resamples, random directions) is drawn from
``numpy.random.default_rng`` seeded from this object, so the same inputs always give the same
numbers and byte-identical files. Each consumer takes its own stream (``seed + offset``), so
changing, say, the number of random directions does not move the bootstrap intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..evaluation.standing import ALPHA


@dataclass(frozen=True)
class StatsConfig:
    bootstrap_replicates: int = 5_000
    """Query resamples for every interval (the study's 5,000)."""
    enumeration_max: int = 16
    """Sign-flip test: enumerate all 2^r signs of the r differences not of the most frequent magnitude
    when r is at most this (``sign_flip``); beyond it, exact convolution on a grid or the saddlepoint."""
    directions: int = 10_000
    """Random query directions of the geometric chance level."""
    confidence: float = 0.95
    alpha: float = ALPHA
    """Significance level of the leaderboard's "differs from the row above" flag (Holm-adjusted)."""
    seed: int = 20_260_901

    @property
    def bootstrap_seed(self) -> int:
        return self.seed

    @property
    def directions_seed(self) -> int:
        return self.seed + 2
