"""Bootstrap intervals, McNemar and Holm on small hand-checkable cases (the sign-flip test: ``test_sign_flip``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from execretrieval_mteb.analysis.bootstrap import percentile_interval, replicate_means, resample_counts
from execretrieval_mteb.analysis.holm import holm_adjust
from execretrieval_mteb.analysis.mcnemar import mcnemar_exact_p, mcnemar_tables


def test_resample_counts_are_a_multinomial_draw_per_replicate() -> None:
    counts = resample_counts(7, 50, seed=3)
    assert counts.shape == (50, 7)
    assert np.all(counts.sum(axis=1) == 7)
    assert np.array_equal(counts, resample_counts(7, 50, seed=3))
    assert not np.array_equal(counts, resample_counts(7, 50, seed=4))


def test_replicate_means_equal_the_means_of_the_resampled_values() -> None:
    rng = np.random.default_rng(0)
    values = rng.random((9, 3))
    draws = np.random.default_rng(11).integers(0, 9, size=(20, 9))
    counts = resample_counts(9, 20, seed=11)  # the same draws, as counts
    explicit = values[draws].mean(axis=1)
    assert np.allclose(replicate_means(counts, values), explicit, rtol=0, atol=1e-15)


def test_percentile_interval_of_a_constant_is_degenerate_and_matches_scipy_otherwise() -> None:
    counts = resample_counts(4, 100, seed=0)
    low, high = percentile_interval(replicate_means(counts, np.ones((4, 1))), 0.95)
    assert low[0] == high[0] == 1.0
    # Against scipy.stats.bootstrap (percentile method): same estimator, independent draws.
    values = (np.random.default_rng(5).random(400) < 0.3).astype(float)
    ours = percentile_interval(replicate_means(resample_counts(400, 5000, seed=1), values[:, None]), 0.95)
    ref = bootstrap((values,), np.mean, n_resamples=5000, method="percentile", random_state=2).confidence_interval
    assert ours[0][0] == pytest.approx(ref.low, abs=0.01)
    assert ours[1][0] == pytest.approx(ref.high, abs=0.01)


@pytest.mark.parametrize("a_only,b_only", [(0, 0), (0, 1), (3, 0), (5, 5), (7, 2), (2, 7), (30, 12), (100, 140), (1, 25)])
def test_mcnemar_equals_the_exact_two_sided_binomial(a_only: int, b_only: int) -> None:
    expected = 1.0 if a_only + b_only == 0 else binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert float(mcnemar_exact_p(a_only, b_only)) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_table_by_hand() -> None:
    a = np.array([[1, 1, 0, 0, 1, 1]], dtype=float).T
    b = np.array([[1, 0, 1, 0, 0, 0]], dtype=float).T
    (table,) = mcnemar_tables(a, b)
    assert (table.a_only, table.b_only, table.both, table.neither) == (3, 1, 1, 1)
    # 3 vs 1 discordant: p = 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
    assert float(mcnemar_exact_p(3, 1)) == pytest.approx(10 / 16)


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.02, 0.03, 0.5 -> 4*0.01, 3*0.02, max(0.06, 2*0.03), max(0.06, 0.5)
    adjusted = holm_adjust(np.array([0.03, 0.01, 0.5, 0.02]))
    assert adjusted == pytest.approx([0.06, 0.04, 0.5, 0.06])
    assert holm_adjust(np.array([0.6, 0.9])) == pytest.approx([1.0, 1.0])
    assert holm_adjust(np.array([])).size == 0
