"""Every pair of models on every metric at every k: a paired test and a paired-bootstrap interval.

For models A (higher on the leaderboard) and B over the same n queries, ``delta = mean(A) - mean(B)``:

- test: the exact McNemar test (``mcnemar``) when both models' per-query values are all 0 or 1,
  otherwise (ties make exec@k fractional; execution_precision@k and nDCG@k are fractions) the paired
  sign-flip permutation test (``sign_flip``); each result names the test it used (``PairedTest``);
- ``p_holm``: Holm's adjustment (``holm``) across all pairs of models on that metric and k;
- ``bootstrap_ci_95``: percentile interval of the difference of the replicate means, both models
  resampled with the same query indices (``bootstrap``).

``pairwise_tests.json`` keeps the study's shape and adds the test's name and both p-values::

    {"A vs B": {metric: {a_only, b_only, both, neither, a_rate, b_rate, delta, mcnemar_exact_p,
                         bootstrap_ci_95: [low, high], test, p, p_holm, nonzero_differences,
                         sign_flips, exact}}}

``a_only``, ``b_only``, ``both``, ``neither`` and ``mcnemar_exact_p`` are null where the values are
not 0/1; ``sign_flips`` (the number of sign vectors, 2^m when enumerated exactly) is null for McNemar.
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
from .sign_flip import exact_p, monte_carlo_p, sign_matrix


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
    sign_flips: int | None
    exact: bool

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
            "nonzero_differences": self.nonzero_differences, "sign_flips": self.sign_flips, "exact": self.exact,
        }


def model_pairs(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (a, b), a < b, in leaderboard order: (0,1), (0,2), ..., (1,2), ..."""
    a, b = np.triu_indices(n_models, k=1)
    return a, b


def _flipped_statistics(scores: ScoreMatrix, ia: np.ndarray, ib: np.ndarray, config: StatsConfig) -> np.ndarray:
    """(R, n_models * n_metrics) ``S @ V`` for the columns some Monte Carlo sign-flip test needs (zeros elsewhere)."""
    n, _, n_metrics = scores.values.shape
    binary = scores.is_binary()
    needed = np.zeros(scores.flat.shape[1], dtype=bool)
    for m in range(n_metrics):
        fractional = ~(binary[ia, m] & binary[ib, m])
        many = np.count_nonzero(scores.values[:, ia, m] != scores.values[:, ib, m], axis=0) > config.exact_max_nonzero
        pairs = np.flatnonzero(fractional & many)
        needed[ia[pairs] * n_metrics + m] = needed[ib[pairs] * n_metrics + m] = True
    flipped = np.zeros((config.permutations if needed.any() else 0, needed.size))
    if needed.any():
        flipped[:, needed] = sign_matrix(n, config.permutations, config.permutation_seed) @ scores.flat[:, needed]
    return flipped


def pairwise_tests(scores: ScoreMatrix, replicates: np.ndarray, config: StatsConfig) -> list[PairResult]:
    """All pairs on all metrics, pair-major; ``replicates`` are the (B, n_models * n_metrics) bootstrap means."""
    _, n_models, n_metrics = scores.values.shape
    ia, ib = model_pairs(n_models)
    binary = scores.is_binary()
    flipped = _flipped_statistics(scores, ia, ib, config)
    by_metric: list[list[PairResult]] = []
    for m, key in enumerate(scores.metrics):
        d = scores.values[:, ia, m] - scores.values[:, ib, m]  # (n, pairs)
        ca, cb = ia * n_metrics + m, ib * n_metrics + m
        low, high = percentile_interval(replicates[:, ca] - replicates[:, cb], config.confidence)
        nonzero = np.count_nonzero(d, axis=0)
        use_mcnemar = binary[ia, m] & binary[ib, m]
        p = np.empty(len(ia))
        flips: list[int | None] = [None] * len(ia)
        exact = np.ones(len(ia), dtype=bool)
        counts: list[McNemarCounts | None] = [None] * len(ia)
        mc = np.flatnonzero(use_mcnemar)
        tables = mcnemar_tables(scores.values[:, ia[mc], m], scores.values[:, ib[mc], m])
        for i, table in zip(mc, tables, strict=True):
            counts[i] = table
        p[mc] = mcnemar_exact_p(np.array([t.a_only for t in tables], dtype=int), np.array([t.b_only for t in tables], dtype=int))
        for i in np.flatnonzero(~use_mcnemar & (nonzero <= config.exact_max_nonzero)):
            p[i], flips[i] = exact_p(d[:, i]), 2 ** int(nonzero[i])
        sampled = np.flatnonzero(~use_mcnemar & (nonzero > config.exact_max_nonzero))
        if sampled.size:
            p[sampled] = monte_carlo_p(d[:, sampled].sum(axis=0), flipped[:, ca[sampled]] - flipped[:, cb[sampled]])
            exact[sampled] = False
            for i in sampled:
                flips[i] = config.permutations
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
                counts=counts[x], nonzero_differences=int(nonzero[x]), sign_flips=flips[x], exact=bool(exact[x]),
            ))
        by_metric.append(results)
    return [by_metric[m][i] for i in range(len(ia)) for m in range(n_metrics)]


def pairwise_json(pairs: Iterable[PairResult]) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        out.setdefault(pair.label, {})[pair.metric] = pair.to_json()
    return out
