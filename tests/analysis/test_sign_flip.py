"""The sign-flip test's p-values: exact methods against full enumeration, the saddlepoint against
exact values on nDCG-like differences, and significance that survives Holm over 300 models."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.pairwise import PairedTest
from execretrieval_mteb.analysis.sign_flip import (
    SignFlipMethod, common_grid, enumeration_p, lattice_p, saddlepoint_p, sign_flip_p_values,
)
from execretrieval_mteb.analysis.statistics import compute_statistics
from execretrieval_mteb.evaluation.metric_names import MAIN_SCORE, Metric
from execretrieval_mteb.evaluation.model_report import ModelIdentity, ModelReport
from execretrieval_mteb.evaluation.scoring import PerQueryScores

NDCG_VALUES = np.array([0.0, 1.0, 0.5, 1 / 3] + [1 / np.log2(r + 1) for r in (2, 4, 5, 6, 8, 9, 10)])


def _brute(d: np.ndarray) -> float:
    d = d[d != 0.0]
    if d.size == 0:
        return 1.0
    signs = 1.0 - 2.0 * ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1)
    return float(np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-9))


@pytest.mark.parametrize("d", [[0.25, 0.0, 1.0, -0.5], [1.0, 1.0, 1.0], [0.5, -0.5], [1 / 3, 2 / 3, 1.0, 0.25, -0.75, 0.0, 0.5],
                               [1.0] * 9 + [-1.0] * 2 + [0.25, -0.5]])
def test_enumeration_equals_brute_force(d: list[float]) -> None:
    assert enumeration_p(np.array(d)) == pytest.approx(_brute(np.array(d)), rel=1e-12)


def test_by_hand_and_trivial_cases() -> None:
    # three differences of 1: |T| = 3 only for all-plus and all-minus, 2 of 8 flips
    assert enumeration_p(np.array([1.0, 1.0, 1.0])) == 0.25
    assert enumeration_p(np.zeros(5)) == 1.0
    assert enumeration_p(np.array([0.5, -0.5])) == 1.0
    p, methods = sign_flip_p_values(np.array([[0.5, 0.0, 0.25]]).T, grid=4)
    assert p[0] == pytest.approx(0.5) and methods == [SignFlipMethod.EXACT_ENUMERATION]


def test_one_magnitude_is_the_sign_test_and_equals_mcnemar() -> None:
    d = np.array([1.0] * 30 + [-1.0] * 12 + [0.0] * 50)
    p, methods = sign_flip_p_values(np.column_stack([d, 0.25 * d]), grid=4)
    assert p == pytest.approx([binomtest(30, 42, 0.5).pvalue] * 2, rel=1e-12)
    assert methods[0].exact


def test_lattice_convolution_equals_brute_force_beyond_the_enumeration_limit() -> None:
    rng = np.random.default_rng(3)
    values = np.array([0.0, 0.25, 0.5, 1 / 3, 2 / 3, 1.0])
    for _ in range(40):
        m = int(rng.integers(17, 21))
        a, b = rng.choice(values, m), rng.choice(values, m)
        a = np.where(rng.random(m) < 0.5, np.maximum(a, b), a)
        grid = common_grid(np.concatenate([a, b]))
        assert grid == 12 or grid is not None and 12 % grid == 0
        assert enumeration_p(a - b, enumeration_max=2) in (None, pytest.approx(_brute(a - b), rel=1e-9))
        assert lattice_p(np.rint((a - b) * grid).astype(np.int64)) == pytest.approx(_brute(a - b), rel=1e-9, abs=1e-300)


def test_grid_of_the_metrics_values() -> None:
    assert common_grid(np.array([0.0, 1.0])) == 1
    assert common_grid(np.array([0.0, 0.25, 1 / 3, 1.0])) == 12
    assert common_grid(NDCG_VALUES) is None


def test_saddlepoint_against_exact_p_on_ndcg_like_differences() -> None:
    """Differences of nDCG values (no common grid) with 30-120 non-zero: exact p by enumeration with
    a generous limit, against the saddlepoint where p < 0.05."""
    rng = np.random.default_rng(1)
    errors = []
    weights = [0.5] + [0.05] * 10
    while len(errors) < 40:
        m = int(rng.integers(30, 120))
        a, b = rng.choice(NDCG_VALUES, m, p=weights), rng.choice(NDCG_VALUES, m, p=weights)
        a = np.where(rng.random(m) < rng.random() * 0.5, np.maximum(a, b), a)
        exact = enumeration_p(a - b, enumeration_max=18)
        if exact is None or exact > 0.05:
            continue
        errors.append(saddlepoint_p((a - b)[:, None])[0] / exact - 1.0)
    errors = np.abs(np.array(errors))
    assert np.median(errors) < 0.02
    assert errors.max() < 0.5


def test_saddlepoint_is_the_method_only_without_grid_and_with_many_magnitudes() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.choice(NDCG_VALUES, 400), rng.choice(NDCG_VALUES, 400)
    p, methods = sign_flip_p_values(np.column_stack([a - b, np.maximum(a, b) - b]), grid=None)
    assert methods == [SignFlipMethod.SADDLEPOINT] * 2 and not methods[0].exact
    assert 0.0 < p[1] < 1e-20 and 0.0 < p[0] <= 1.0


def _report(name: str, values: np.ndarray) -> ModelReport:
    qids = tuple(f"q{i:04d}" for i in range(values.size))
    scores = PerQueryScores(qids, {Metric.EXEC.key(1): dict(zip(qids, values.tolist(), strict=True))})
    return ModelReport(ModelIdentity(name, None), "fp", "rev", qids, scores, {}, {})


def test_three_hundred_models_with_clear_differences_stay_significant_after_holm() -> None:
    """44,850 pairs: sampled sign flips could not go below 1/10,001, i.e. a Holm-adjusted 4.5; exact
    p-values keep the clear differences significant. Every model has a tied query (a fractional exec@1),
    so every pair uses the sign-flip test."""
    n, models = 1009, 300
    rng = np.random.default_rng(4)
    skill = np.linspace(0.05, 0.95, models)
    difficulty = rng.random(n)
    reports = []
    for s in range(models):
        values = (difficulty < skill[s] + 0.05 * rng.standard_normal(n)).astype(float)
        values[s % n] = 0.25
        reports.append(_report(f"m{s:03d}", values))
    stats = compute_statistics(reports, StatsConfig(bootstrap_replicates=100))
    pairs = [p for p in stats.pairs if p.metric == MAIN_SCORE]
    assert len(pairs) == models * (models - 1) // 2
    assert all(p.test is PairedTest.SIGN_FLIP_PERMUTATION and p.exact for p in pairs)
    far = [p for p in pairs if p.delta > 0.5]
    assert far and all(p.p_holm < 1e-10 for p in far)
    assert sum(p.significant() for p in pairs) > 0.8 * len(pairs)
