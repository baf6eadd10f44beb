"""Every pair of models on every metric at every k: a paired test and a paired-bootstrap interval.

For models A (higher on the leaderboard) and B over the same n queries, ``delta = mean(A) - mean(B)``:

- test: the exact McNemar test (``mcnemar``) when both models' per-query values are all 0 or 1,
  otherwise (ties make exec@k fractional; execution_precision@k and nDCG@k are fractions) the paired
  sign-flip permutation test (``sign_flip``); each result names the test it used (``PairedTest``)
  and, for the sign-flip test, how its p-value was computed (``SignFlipMethod``: exact enumeration,
  exact lattice convolution, or the saddlepoint approximation);
- ``p_holm``: Holm's adjustment (``holm``) across all pairs of models on that metric and k;
- ``bootstrap_ci_95``: percentile interval of the difference of the replicate means, both models
  resampled with the same query indices (``bootstrap``), for every pair (in blocks of pairs, so
  100 models' 4,950 pairs need no more memory than 24 models' 276).

``pairwise_tests.json`` keeps the study's shape and adds the test's name, how p was computed and
both p-values::

    {"A vs B": {metric: {a_only, b_only, both, neither, a_rate, b_rate, delta, mcnemar_exact_p,
                         bootstrap_ci_95: [low, high], test, method, exact, p, p_holm,
                         nonzero_differences}}}

``a_only``, ``b_only``, ``both``, ``neither`` and ``mcnemar_exact_p`` are null where the values are
not 0/1; ``method`` is null for McNemar.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.standing import ALPHA
from .bootstrap import percentile_interval
from .config import StatsConfig
from .holm import holm_adjust
from .mcnemar import McNemarCounts, mcnemar_exact_p, mcnemar_tables
from .score_matrix import ScoreMatrix
from .sign_flip import SignFlipMethod, common_grid, sign_flip_p_values


class PairedTest(enum.Enum):
    MCNEMAR_EXACT = "mcnemar_exact"
    SIGN_FLIP_PERMUTATION = "sign_flip_permutation"


@dataclass(frozen=True)
class PairResult:
    a: str
    b: str
    metric: str
    test: PairedTest
    a_rate: float
    b_rate: float
    delta: float
    p: float
    p_holm: float
    ci_low: float
    ci_high: float
    counts: McNemarCounts | None
    nonzero_differences: int
    method: SignFlipMethod | None
    """How the sign-flip test's p was computed; None for McNemar (always exact)."""

    @property
    def exact(self) -> bool:
        return self.method is None or self.method.exact

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_holm < alpha

    def to_json(self) -> dict[str, Any]:
        counts = self.counts
        return {
            "a_only": counts.a_only if counts else None, "b_only": counts.b_only if counts else None,
            "both": counts.both if counts else None, "neither": counts.neither if counts else None,
            "a_rate": self.a_rate, "b_rate": self.b_rate, "delta": self.delta,
            "mcnemar_exact_p": self.p if self.test is PairedTest.MCNEMAR_EXACT else None,
            "bootstrap_ci_95": [self.ci_low, self.ci_high],
            "test": self.test.value, "p": self.p, "p_holm": self.p_holm,
            "method": None if self.method is None else self.method.value, "exact": self.exact,
            "nonzero_differences": self.nonzero_differences,
        }


def model_pairs(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (a, b), a < b, in leaderboard order: (0,1), (0,2), ..., (1,2), ..."""
    a, b = np.triu_indices(n_models, k=1)
    return a, b


PAIR_BLOCK = 2_000
"""Pairs whose paired-bootstrap differences are held in memory at once (B x 2,000 floats)."""


def _paired_intervals(replicates: np.ndarray, ca: np.ndarray, cb: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    low, high = np.empty(ca.size), np.empty(ca.size)
    for begin in range(0, ca.size, PAIR_BLOCK):
        block = slice(begin, begin + PAIR_BLOCK)
        low[block], high[block] = percentile_interval(replicates[:, ca[block]] - replicates[:, cb[block]], confidence)
    return low, high


def pairwise_tests(scores: ScoreMatrix, replicates: np.ndarray, config: StatsConfig) -> list[PairResult]:
    """All pairs on all metrics, pair-major; ``replicates`` are the (B, n_models * n_metrics) bootstrap means."""
    _, n_models, n_metrics = scores.values.shape
    ia, ib = model_pairs(n_models)
    binary = scores.is_binary()
    by_metric: list[list[PairResult]] = []
    for m, key in enumerate(scores.metrics):
        d = scores.values[:, ia, m] - scores.values[:, ib, m]  # (n, pairs)
        ca, cb = ia * n_metrics + m, ib * n_metrics + m
        low, high = _paired_intervals(replicates, ca, cb, config.confidence)
        nonzero = np.count_nonzero(d, axis=0)
        use_mcnemar = binary[ia, m] & binary[ib, m]
        p = np.empty(len(ia))
        methods: list[SignFlipMethod | None] = [None] * len(ia)
        counts: list[McNemarCounts | None] = [None] * len(ia)
        mc = np.flatnonzero(use_mcnemar)
        tables = mcnemar_tables(scores.values[:, ia[mc], m], scores.values[:, ib[mc], m])
        for i, table in zip(mc, tables, strict=True):
            counts[i] = table
        p[mc] = mcnemar_exact_p(np.array([t.a_only for t in tables], dtype=int), np.array([t.b_only for t in tables], dtype=int))
        flip = np.flatnonzero(~use_mcnemar)
        if flip.size:
            p[flip], flip_methods = sign_flip_p_values(d[:, flip], common_grid(scores.values[:, :, m]), config.enumeration_max)
            for i, method in zip(flip, flip_methods, strict=True):
                methods[i] = method
        p_holm = holm_adjust(p)
        results = []
        for x in range(len(ia)):
            a, b = int(ia[x]), int(ib[x])
            results.append(PairResult(
                a=scores.models[a], b=scores.models[b], metric=key,
                test=PairedTest.MCNEMAR_EXACT if use_mcnemar[x] else PairedTest.SIGN_FLIP_PERMUTATION,
                a_rate=float(scores.means[a, m]), b_rate=float(scores.means[b, m]),
                delta=float(scores.means[a, m] - scores.means[b, m]),
                p=float(p[x]), p_holm=float(p_holm[x]), ci_low=float(low[x]), ci_high=float(high[x]),
                counts=counts[x], nonzero_differences=int(nonzero[x]), method=methods[x],
            ))
        by_metric.append(results)
    return [by_metric[m][i] for i in range(len(ia)) for m in range(n_metrics)]


def pairwise_json(pairs: Iterable[PairResult]) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        out.setdefault(pair.label, {})[pair.metric] = pair.to_json()
    return out
