"""Paired sign-flip permutation test, with p-values that stay accurate where they are small.

With ties, a query's exec@k is an expectation under random tie-breaking (e.g. 0.25), and
execution_precision@k and nDCG@k are fractions anyway, so the McNemar table does not apply. Under
the null hypothesis that the two models are exchangeable on every query, each per-query difference
``d_i = a_i - b_i`` is as likely as ``-d_i``. With independent fair signs ``s_i`` and
``S = sum_i s_i d_i`` (symmetric about 0), the two-sided p-value of the observed ``T = sum_i d_i`` is::

    p = P(|S| >= |T|) = 2 P(S >= |T|)   (T != 0),    p = 1   (T = 0)

Sampling random sign vectors cannot resolve small p (10,000 draws give at best 1/10,001, which Holm
over 528 pairs turns into 0.053), so p is computed from the exact distribution of ``S`` where that
is affordable, and otherwise by a saddlepoint approximation (``SignFlipMethod`` records which):

- ``EXACT_ENUMERATION``: the differences of the most frequent magnitude ``a0`` (``n0`` of them)
  contribute ``a0 (2B - n0)`` with ``B ~ Binomial(n0, 1/2)``; the other ``r`` differences, when
  ``r <= enumeration_max`` (16), are enumerated (all ``2^r`` sums ``rho``)::

      P(S >= x) = 2^-r sum_rho P(B >= ceil((x - rho + a0 n0) / (2 a0)))

  scipy's binomial survival function is accurate far into the tail. With one magnitude only
  (``r = 0``, e.g. 0/1 values) this is the sign test, i.e. McNemar's exact test.
- ``EXACT_LATTICE``: more than 16 other differences, but all on a common grid (every value of the
  metric a fraction with a small denominator, as exec@k and execution_precision@k under ties):
  with ``d_i = c_i u`` for integers ``c_i``, the other differences' distribution is an exact
  convolution on the integer grid, combined with the binomial as above.
- ``SADDLEPOINT``: neither (nDCG's ``1/log2`` values with many distinct differences): the
  Lugannani-Rice approximation for the sum of independent ``s_i d_i``, whose cumulant generating
  function is ``K(t) = sum_i log cosh(t d_i)``::

      K'(t) = sum d_i tanh(t d_i) = x   (solved by Newton from below: K' is concave for t > 0)
      w = sqrt(2 (t x - K(t))),  u = t sqrt(K''(t)),  P(S >= x) ~ Q(w) + phi(w) (1/u - 1/w)

  The tests check it against full enumeration on such values (relative error a few per cent
  where p < 0.05) and it is never reported below the smallest possible p, ``2^(1-m)``.

Comparisons allow 1e-9 of rounding so that sums equal to ``|T|`` in exact arithmetic count as extreme.
"""

from __future__ import annotations

import enum
from fractions import Fraction
from math import lcm

import numpy as np
from scipy.special import bdtrc
from scipy.stats import binom, norm

TOLERANCE = 1e-9
MAX_DENOMINATOR = 10**6
LATTICE_MAX_SUPPORT = 400_001
"""Largest grid (2 x the other differences' total magnitude + 1) the exact convolution takes on."""
LATTICE_MAX_WORK = 20_000_000
"""Largest grid x atoms (the convolution's cost) before the saddlepoint is used instead."""


class SignFlipMethod(enum.Enum):
    EXACT_ENUMERATION = "exact_enumeration"
    EXACT_LATTICE = "exact_lattice"
    SADDLEPOINT = "saddlepoint"

    @property
    def exact(self) -> bool:
        return self is not SignFlipMethod.SADDLEPOINT


def common_grid(values: np.ndarray) -> int | None:
    """The least ``L`` with every value times ``L`` an integer (denominators up to 10^6), or None."""
    denominators = 1
    for v in np.unique(values):
        f = Fraction(float(v)).limit_denominator(MAX_DENOMINATOR)
        if abs(float(f) - float(v)) > TOLERANCE:
            return None
        denominators = lcm(denominators, f.denominator)
        if denominators > MAX_DENOMINATOR:
            return None
    return denominators


def binomial_tail(k: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """``P(Binomial(n, 1/2) >= k)``, elementwise (scipy's ``bdtrc``, accurate far into the tail)."""
    k, n = np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64)
    inside = bdtrc(np.clip(k - 1, 0, None), n, 0.5)
    return np.where(k <= 0, 1.0, np.where(k > n, 0.0, inside))


def _split(d: np.ndarray) -> tuple[float, int, np.ndarray]:
    """The most frequent non-zero magnitude, its count, and the other non-zero differences."""
    a = np.abs(d[d != 0.0])
    keys = np.round(a, 12)
    values, counts = np.unique(keys, return_counts=True)
    top = int(np.argmax(counts))
    chosen = keys == values[top]
    return float(a[chosen][0]), int(counts[top]), d[d != 0.0][~chosen]


def _combine(a0: float, n0: int, x: float, rest_sums: np.ndarray, rest_probability: np.ndarray) -> float:
    """2 P(S >= x) with S = a0 (2B - n0) + R, R taking ``rest_sums`` with ``rest_probability``."""
    need = np.clip(np.ceil((x - TOLERANCE - rest_sums + a0 * n0) / (2.0 * a0)), 0, n0 + 1).astype(np.int64)
    # many rest sums share a threshold: sum their probabilities first, one binomial tail per threshold
    mass = np.bincount(need, weights=rest_probability, minlength=n0 + 2)
    return float(min(1.0, 2.0 * np.dot(mass, binomial_tail(np.arange(n0 + 2), n0))))


def enumeration_p(d: np.ndarray, enumeration_max: int = 16) -> float | None:
    """Exact p from the binomial of the most frequent magnitude and all sign vectors of the rest (None: too many)."""
    x = abs(float(d.sum()))
    if np.count_nonzero(d) == 0 or x <= TOLERANCE:
        return 1.0
    a0, n0, rest = _split(d)
    if rest.size > enumeration_max:
        return None
    sums = np.zeros(1)
    for value in np.abs(rest):
        sums = np.concatenate((sums + value, sums - value))
    return _combine(a0, n0, x, sums, np.full(sums.size, 0.5**rest.size))


def lattice_p(c: np.ndarray) -> float | None:
    """Exact p for integer differences ``c`` by convolution on the integer grid (None: grid too large)."""
    if not c.any() or c.sum() == 0:
        return 1.0
    c = c // np.gcd.reduce(np.abs(c[c != 0]))
    x = abs(int(c.sum()))
    a0, n0, rest = _split(c.astype(np.float64))
    magnitudes, counts = np.unique(np.abs(rest).astype(np.int64), return_counts=True)
    half = int(np.dot(magnitudes, counts))
    if 2 * half + 1 > LATTICE_MAX_SUPPORT or (2 * half + 1) * int(counts.sum() + counts.size) > LATTICE_MAX_WORK:
        return None
    pmf = np.ones(1)
    for magnitude, count in zip(magnitudes.tolist(), counts.tolist(), strict=True):
        # convolve with count + 1 atoms 2 * magnitude apart: one shifted, weighted copy per atom
        weights = binom.pmf(np.arange(count + 1), count, 0.5)
        out = np.zeros(pmf.size + 2 * magnitude * count)
        for j, weight in enumerate(weights):
            out[2 * magnitude * j: 2 * magnitude * j + pmf.size] += weight * pmf
        pmf = out
    sums = np.arange(-half, half + 1, dtype=np.float64)
    return _combine(a0, n0, float(x), sums, pmf)


def saddlepoint_p(d: np.ndarray, iterations: int = 200) -> np.ndarray:
    """Lugannani-Rice two-sided p per column of ``d`` (n, P)."""
    a = np.abs(np.asarray(d, dtype=np.float64))
    x = np.abs(d.sum(axis=0))
    top = a.sum(axis=0)
    m = np.count_nonzero(a, axis=0)
    floor = np.minimum(1.0, 2.0 * 0.5 ** m)
    p = np.ones(a.shape[1])
    at_max = (x >= top - TOLERANCE) & (m > 0)
    p[at_max] = floor[at_max]
    live = np.flatnonzero((x > TOLERANCE) & ~at_max)
    if live.size == 0:
        return p
    aa, xx = a[:, live], x[live]
    t = xx / np.sum(aa * aa, axis=0)
    todo = np.arange(live.size)
    for _ in range(iterations):
        th = np.tanh(t[todo] * aa[:, todo])
        f = np.sum(aa[:, todo] * th, axis=0)
        slope = np.sum(aa[:, todo] ** 2 * (1.0 - th * th), axis=0)
        step = (xx[todo] - f) / slope
        t[todo] += step
        todo = todo[np.abs(xx[todo] - f) > 1e-12 * np.maximum(xx[todo], 1.0)]
        if todo.size == 0:
            break
    ta = t * aa
    log_cosh = ta + np.log1p(np.exp(-2.0 * ta)) - np.log(2.0)
    k = log_cosh.sum(axis=0)
    th = np.tanh(ta)
    k2 = np.sum(aa * aa * (1.0 - th * th), axis=0)
    w = np.sqrt(np.maximum(2.0 * (t * xx - k), 0.0))
    u = t * np.sqrt(k2)
    with np.errstate(divide="ignore", invalid="ignore"):
        one_sided = norm.sf(w) + norm.pdf(w) * (1.0 / u - 1.0 / w)
    small = w < 1e-6
    one_sided[small] = norm.sf(xx[small] / np.sqrt(np.sum(aa[:, small] ** 2, axis=0)))
    p[live] = np.clip(2.0 * one_sided, floor[live], 1.0)
    return p


def sign_flip_p_values(d: np.ndarray, grid: int | None, enumeration_max: int = 16) -> tuple[np.ndarray, list[SignFlipMethod]]:
    """p and method per column of ``d`` (n, P). ``grid``: an ``L`` with every ``d * L`` an integer, or None."""
    n_pairs = d.shape[1]
    p = np.ones(n_pairs)
    methods = [SignFlipMethod.EXACT_ENUMERATION] * n_pairs
    a = np.abs(d)
    nonzero = a > 0.0
    largest = a.max(axis=0, initial=0.0)
    smallest = np.where(nonzero, a, np.inf).min(axis=0, initial=np.inf)
    one_magnitude = nonzero.any(axis=0) & (largest - smallest <= TOLERANCE)
    # One magnitude (the sign test): vectorised, the binomial tail directly.
    cols = np.flatnonzero(one_magnitude)
    if cols.size:
        m = nonzero[:, cols].sum(axis=0)
        x = np.round(np.abs(d[:, cols].sum(axis=0)) / largest[cols])
        p[cols] = np.where(x == 0, 1.0, np.minimum(1.0, 2.0 * binomial_tail(np.ceil((x + m) / 2.0), m)))
    saddle = []
    for col in np.flatnonzero(~one_magnitude & nonzero.any(axis=0)):
        value = enumeration_p(d[:, col], enumeration_max)
        if value is None and grid is not None:
            value = lattice_p(np.rint(d[:, col] * grid).astype(np.int64))
            methods[col] = SignFlipMethod.EXACT_LATTICE
        if value is None:
            saddle.append(col)
            methods[col] = SignFlipMethod.SADDLEPOINT
        else:
            p[col] = value
    if saddle:
        p[saddle] = saddlepoint_p(d[:, saddle])
    return p, methods
