"""Percentile bootstrap over queries, vectorised across every model and metric at once.

One replicate resamples the n queries with replacement; its statistic is the mean of the
resampled per-query values. Writing replicate b as counts ``C[b, i]`` (how often query i was
drawn), every replicate mean of every column of a value matrix ``V`` (n x M: one column per
model and metric) is a single matrix product::

    means = C @ V / n                                        (B x M)
    interval = (quantile_{(1-c)/2}(means), quantile_{(1+c)/2}(means))   per column, linear interpolation

The same ``C`` serves every model and metric, and a paired bootstrap of a difference between two
models is the difference of their replicate columns (the mean is linear, and both models are
resampled with the same query indices), so the 276 pairs of 24 models cost a subtraction each.
``scipy.stats.bootstrap`` computes the same percentile interval but draws and reduces a fresh
(B x n) resample per call, i.e. per model, metric and pair: that is the slow reference route timed
in ``benchmarks/stats_speed.py``.
"""

from __future__ import annotations

import numpy as np


def resample_counts(n: int, replicates: int, seed: int) -> np.ndarray:
    """(replicates, n) float64: how many times each query is drawn in each replicate."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(replicates, n))
    offsets = draws + (np.arange(replicates) * n)[:, None]
    return np.bincount(offsets.ravel(), minlength=replicates * n).reshape(replicates, n).astype(np.float64)


def replicate_means(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(B, M) mean of each column of ``values`` (n, M) in each replicate."""
    return counts @ values / counts.shape[1]


def percentile_interval(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``replicates`` (B, M), the central ``confidence`` percentile interval."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(replicates, [tail, 1.0 - tail], axis=0)
    return low, high
