"""Paired sign-flip permutation test for per-query values that are not all 0/1.

With ties, a query's exec@k is an expectation under random tie-breaking (e.g. 0.25), and
execution_precision@k and nDCG@k are fractions anyway, so the McNemar table does not apply. Under
the null hypothesis that the two models are exchangeable on every query, each per-query difference
``d_i = a_i - b_i`` is as likely as ``-d_i``. With ``T = sum_i d_i`` and independent random signs
``s_i``::

    p = (1 + #{r : |sum_i s_ri d_i| >= |T|}) / (1 + R)                 R random sign vectors (Monte Carlo)
    p = #{s in {-1, 1}^m : |sum_i s_i d_i| >= |T|} / 2^m               when only m <= 16 differences are non-zero (exact)

Zero differences do not move the statistic, so one shared (R x n) sign matrix ``S`` serves every
pair: ``S @ d = S @ a - S @ b``, and ``W = S @ V`` for the value matrix ``V`` (n x M, all models and
metrics) gives every pair's resampled statistics by subtracting two columns of ``W``. Comparisons
allow 1e-9 of rounding so that flips giving exactly ``|T|`` in exact arithmetic count as extreme.
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-9


def sign_matrix(n: int, permutations: int, seed: int) -> np.ndarray:
    """(permutations, n) float64 of random +-1."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(permutations, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0


def monte_carlo_p(observed: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """p per column: ``observed`` (P,) statistics, ``flipped`` (R, P) statistics under random signs."""
    extreme = np.abs(flipped) >= np.abs(observed)[None, :] - TOLERANCE
    return (1.0 + extreme.sum(axis=0)) / (1.0 + flipped.shape[0])


def exact_p(differences: np.ndarray) -> float:
    """Exact p by enumerating all sign vectors of the non-zero differences (2^m of them)."""
    d = differences[differences != 0.0]
    if d.size == 0:
        return 1.0
    bits = (np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1
    flipped = (1.0 - 2.0 * bits) @ d
    return float(np.mean(np.abs(flipped) >= abs(float(d.sum())) - TOLERANCE))


def sign_flip_p(differences: np.ndarray, permutations: int, seed: int, exact_max_nonzero: int = 16) -> tuple[float, int, bool]:
    """One pair on its own: (p, number of sign vectors used, exact?)."""
    nonzero = int(np.count_nonzero(differences))
    if nonzero <= exact_max_nonzero:
        return exact_p(differences), 2**nonzero, True
    flipped = sign_matrix(differences.size, permutations, seed) @ differences
    return float(monte_carlo_p(np.array([differences.sum()]), flipped[:, None])[0]), permutations, False
