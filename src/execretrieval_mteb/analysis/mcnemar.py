"""Exact McNemar test of two models on 0/1 per-query outcomes.

Only the discordant queries carry information: ``a_only`` (A solves, B does not) and ``b_only``.
Under the null hypothesis of equal success rates each discordant query is A's with probability
1/2, so the exact two-sided p-value is that of ``scipy.stats.binomtest(a_only, a_only + b_only, 0.5)``.
With p = 1/2 the binomial is symmetric and that test's p-value is::

    p = min(1, 2 * BinomCDF(min(a_only, b_only); a_only + b_only, 1/2))      (1 when there is no discordant query)

which is evaluated here for many pairs at once (``scipy.stats.binom.cdf`` is vectorised; the tests
check equality with ``binomtest`` over a grid of counts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom


@dataclass(frozen=True)
class McNemarCounts:
    a_only: int
    b_only: int
    both: int
    neither: int


def mcnemar_tables(a: np.ndarray, b: np.ndarray) -> list[McNemarCounts]:
    """The 2x2 table of each column pair of two (n, P) 0/1 outcome matrices over the same queries."""
    a_ok, b_ok = a == 1.0, b == 1.0
    cells = [np.sum(x, axis=0) for x in (a_ok & ~b_ok, ~a_ok & b_ok, a_ok & b_ok, ~a_ok & ~b_ok)]
    return [McNemarCounts(int(w), int(x), int(y), int(z)) for w, x, y, z in zip(*cells, strict=True)]


def mcnemar_exact_p(a_only: np.ndarray | int, b_only: np.ndarray | int) -> np.ndarray:
    """Two-sided exact McNemar p-values (vectorised over pairs)."""
    a_only, b_only = np.asarray(a_only), np.asarray(b_only)
    n = a_only + b_only
    p = 2.0 * binom.cdf(np.minimum(a_only, b_only), n, 0.5)
    return np.where(n == 0, 1.0, np.minimum(1.0, p))
