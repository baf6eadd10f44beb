"""Every pair of models: which test is used, its counts, Holm across pairs, the paired interval,
and the leaderboard rows built on them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from execretrieval_mteb.analysis.bootstrap import percentile_interval, resample_counts
from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.holm import holm_adjust
from execretrieval_mteb.analysis.pairwise import PairedTest
from execretrieval_mteb.analysis.statistics import compute_statistics
from execretrieval_mteb.evaluation.metric_names import MAIN_SCORE, Metric
from execretrieval_mteb.evaluation.model_report import ModelIdentity, ModelReport
from execretrieval_mteb.evaluation.scoring import PerQueryScores

CONFIG = StatsConfig(bootstrap_replicates=2000)


def _report(name: str, exec1: list[float], exec3: list[float] | None = None) -> ModelReport:
    qids = tuple(f"q{i}" for i in range(len(exec1)))
    values = {Metric.EXEC.key(1): dict(zip(qids, exec1, strict=True))}
    if exec3 is not None:
        values[Metric.EXEC.key(3)] = dict(zip(qids, exec3, strict=True))
    return ModelReport(ModelIdentity(name, None), "fp", "rev", qids, PerQueryScores(qids, values), {}, {})


def test_binary_values_use_mcnemar_and_fractional_ones_the_sign_flip_test() -> None:
    rng = np.random.default_rng(0)
    a = (rng.random(60) < 0.6).astype(float)
    b = (rng.random(60) < 0.3).astype(float)
    b[:5] = 1.0
    c = b.copy()
    c[:5] = 0.25  # a canonical tied with three mutants at rank 1
    stats = compute_statistics([_report("A", list(a)), _report("B", list(b)), _report("C", list(c))], CONFIG)
    assert stats.scores.models[0] == "A"
    ab = stats.pair("A", "B", MAIN_SCORE)
    assert ab is not None and ab.test is PairedTest.MCNEMAR_EXACT and ab.exact
    a_only, b_only = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
    assert ab.counts is not None and (ab.a, ab.counts.a_only, ab.counts.b_only) == ("A", a_only, b_only)
    assert ab.p == pytest.approx(binomtest(a_only, a_only + b_only, 0.5).pvalue)
    assert ab.to_json()["mcnemar_exact_p"] == ab.p
    ac = stats.pair("A", "C", MAIN_SCORE)
    assert ac is not None and ac.test is PairedTest.SIGN_FLIP_PERMUTATION and ac.counts is None
    assert ac.to_json()["mcnemar_exact_p"] is None and ac.exact and ac.to_json()["method"] == ac.method.value
    bc = stats.pair("B", "C", MAIN_SCORE)  # only the five tied queries differ: one magnitude, the sign test
    assert bc is not None and bc.exact and bc.method is not None
    assert bc.p == pytest.approx(2 / 32)  # all five differences equal: only all-plus / all-minus reach |T|


def test_holm_runs_over_all_pairs_of_one_metric_and_delta_is_a_minus_b() -> None:
    rng = np.random.default_rng(1)
    reports = [_report(n, list((rng.random(80) < p).astype(float))) for n, p in (("A", 0.7), ("B", 0.5), ("C", 0.45), ("D", 0.2))]
    stats = compute_statistics(reports, CONFIG)
    pairs = [p for p in stats.pairs if p.metric == MAIN_SCORE]
    assert len(pairs) == 6
    assert [p.p_holm for p in pairs] == pytest.approx(list(holm_adjust(np.array([p.p for p in pairs]))))
    for p in pairs:
        assert p.delta == pytest.approx(p.a_rate - p.b_rate)
        assert stats.scores.models.index(p.a) < stats.scores.models.index(p.b)


def test_paired_interval_is_the_percentile_interval_of_the_differences() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.random(50), rng.random(50)
    stats = compute_statistics([_report("A", list(a)), _report("B", list(b))], CONFIG)
    first, second = (a, b) if stats.scores.models[0] == "A" else (b, a)
    counts = resample_counts(50, CONFIG.bootstrap_replicates, CONFIG.bootstrap_seed)
    low, high = percentile_interval((counts @ (first - second) / 50)[:, None], 0.95)
    (pair,) = stats.pairs
    assert (pair.ci_low, pair.ci_high) == pytest.approx((low[0], high[0]), abs=1e-12)
    interval = stats.intervals[stats.scores.models[0]][MAIN_SCORE]
    assert interval.low <= interval.mean <= interval.high
    assert interval.format() == f"{interval.mean:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def test_each_model_is_tested_against_the_one_above_it() -> None:
    n = 300
    strong = [1.0] * 200 + [0.0] * 100
    close = [1.0] * 195 + [0.0] * 105
    weak = [1.0] * 60 + [0.0] * 240
    stats = compute_statistics([_report("weak", weak[:n]), _report("strong", strong), _report("close", close)], CONFIG)
    assert stats.scores.models == ("strong", "close", "weak")
    assert stats.vs_above("strong") is None
    close_above, weak_above = stats.vs_above("close"), stats.vs_above("weak")
    assert close_above is not None and (close_above.a, close_above.b) == ("strong", "close")
    assert not close_above.significant(CONFIG.alpha)
    assert weak_above is not None and (weak_above.a, weak_above.b) == ("close", "weak")
    assert weak_above.significant(CONFIG.alpha) and weak_above.p_holm < 0.05


def test_reports_on_different_queries_are_refused() -> None:
    with pytest.raises(ValueError, match="same"):
        compute_statistics([_report("A", [1.0, 0.0]), _report("B", [1.0, 0.0, 1.0])], CONFIG)
    with pytest.raises(ValueError, match="same model name"):
        compute_statistics([_report("A", [1.0, 0.0]), _report("A", [1.0, 1.0])], CONFIG)
