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

    def significant(self, alpha: float = 0.05) -> bool:
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


def pairwise_tests(scores: ScoreMatrix, replicates: np.ndarray, config: StatsConfig) -> list[PairResult]:
    """All pairs on all metrics; ``replicates`` are the (B, n_models * n_metrics) bootstrap means."""
    n, n_models, n_metrics = scores.values.shape
    ia, ib = model_pairs(n_models)
    binary = scores.is_binary()
    flat = scores.flat
    # One shared sign matrix for the Monte Carlo permutation test; W = S @ V for the needed columns only.
    needs_flips = np.zeros(n_models * n_metrics, dtype=bool)
    diffs_by_metric = []
    for m in range(n_metrics):
        d = scores.values[:, ia, m] - scores.values[:, ib, m]  # (n, P)
        diffs_by_metric.append(d)
        fractional = ~(binary[ia, m] & binary[ib, m])
        big = np.count_nonzero(d, axis=0) > config.exact_max_nonzero
        for x in np.flatnonzero(fractional & big):
            needs_flips[ia[x] * n_metrics + m] = needs_flips[ib[x] * n_metrics + m] = True
    flipped = np.zeros((0, n_models * n_metrics))
    if needs_flips.any():
        signs = sign_matrix(n, config.permutations, config.permutation_seed)
        flipped = np.zeros((config.permutations, n_models * n_metrics))
        flipped[:, needs_flips] = signs @ flat[:, needs_flips]

    results: dict[tuple[int, int], PairResult] = {}
    for m, key in enumerate(scores.metrics):
        d = diffs_by_metric[m]
        ca, cb = ia * n_metrics + m, ib * n_metrics + m
        low, high = percentile_interval(replicates[:, ca] - replicates[:, cb], config.confidence)
        nonzero = np.count_nonzero(d, axis=0)
        use_mcnemar = binary[ia, m] & binary[ib, m]
        p = np.empty(len(ia))
        flips: list[int | None] = [None] * len(ia)
        exact = np.zeros(len(ia), dtype=bool)
        counts: list[McNemarCounts | None] = [None] * len(ia)
        mc = np.flatnonzero(use_mcnemar)
        tables = mcnemar_tables(scores.values[:, ia[mc], m], scores.values[:, ib[mc], m])
        for x, table in zip(mc, tables, strict=True):
            counts[x] = table
        p[mc] = mcnemar_exact_p(np.array([t.a_only for t in tables], dtype=int), np.array([t.b_only for t in tables], dtype=int))
        exact[mc] = True
        small = np.flatnonzero(~use_mcnemar & (nonzero <= config.exact_max_nonzero))
        for x in small:
            p[x] = exact_p(d[:, x])
            flips[x] = 2 ** int(nonzero[x])
            exact[x] = True
        large = np.flatnonzero(~use_mcnemar & (nonzero > config.exact_max_nonzero))
        if large.size:
            observed = d[:, large].sum(axis=0)
            p[large] = monte_carlo_p(observed, flipped[:, ca[large]] - flipped[:, cb[large]])
            for x in large:
                flips[x] = config.permutations
        p_holm = holm_adjust(p)
        for x in range(len(ia)):
            a, b = int(ia[x]), int(ib[x])
            results[(x, m)] = PairResult(
                a=scores.models[a], b=scores.models[b], metric=key,
                test=PairedTest.MCNEMAR_EXACT if use_mcnemar[x] else PairedTest.SIGN_FLIP_PERMUTATION,
                a_rate=float(scores.means[a, m]), b_rate=float(scores.means[b, m]),
                delta=float(scores.means[a, m] - scores.means[b, m]),
                p=float(p[x]), p_holm=float(p_holm[x]), ci_low=float(low[x]), ci_high=float(high[x]),
                counts=counts[x], nonzero_differences=int(nonzero[x]), sign_flips=flips[x], exact=bool(exact[x]),
            )
    return [results[(x, m)] for x in range(len(ia)) for m in range(n_metrics)]


def pairwise_json(pairs: Iterable[PairResult]) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        out.setdefault(pair.label, {})[pair.metric] = pair.to_json()
    return out
