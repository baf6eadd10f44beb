"""Holm's step-down adjustment of p-values for a family of m tests.

With the raw p-values sorted ascending, ``p_(1) <= ... <= p_(m)``::

    p_holm_(i) = min(1, max_{j <= i} (m - j + 1) * p_(j))

It controls the family-wise error rate without assuming independence between tests (the pairs of
one metric share models, so they are not independent). Here a family is every pair of models on
one metric at one k.
"""

from __future__ import annotations

import numpy as np


def holm_adjust(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input order."""
    p = np.asarray(p, dtype=np.float64)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted
    return out
