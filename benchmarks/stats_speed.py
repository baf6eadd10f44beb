"""Time of every statistic and analysis for 24 systems on the bundled 1,009 queries, next to the
obvious route (``scipy.stats.bootstrap`` called per model and metric), in the same run.

The 24 synthetic systems (``analysis.synthetic``: dense-model-like embeddings with the benchmark's
family structure, every fourth rounding its scores so that ties make values fractional) come with
full score matrices and corpus embeddings, so every analysis runs: 24 x 12 intervals, 276 pairs x
12 metrics (McNemar or sign-flip test, paired-bootstrap interval, Holm), miss attribution, gap,
deception, pool density, edit size, length bias, per-domain, difficulty, family accuracy, the
structure-only baseline and the geometric chance level (10,000 directions per model). Target: the
whole set under 10 s on 2 cores. Figures and report.md are timed separately (not part of the set).
Then 100 systems (``--large``; reports only): all 4,950 pairs x 12 metrics tested (McNemar or
the sign-flip test with exact or saddlepoint p-values, Holm) with a paired-bootstrap interval for
every pair, and the 1,200 model intervals: target under 60 s on 2 cores. Each time is printed as wall-clock and as this process's CPU time (all threads): on a machine shared
with other jobs the wall time grows with their load, the CPU time much less.

The reference route computes only the 288 intervals, one ``scipy.stats.bootstrap`` call each
(percentile method, 5,000 resamples, vectorised); its paired-difference intervals are timed on a
sample of pairs and extrapolated to all 3,312, and say so.

    .venv/bin/python benchmarks/stats_speed.py [--systems 24] [--large 100] [--repeat 3] [--no-reference]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import bootstrap

from execretrieval_mteb.analysis.compute import analyse
from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.figures import save_figures
from execretrieval_mteb.analysis.report_md import render_report
from execretrieval_mteb.analysis.statistics import compute_statistics
from execretrieval_mteb.analysis.sign_flip import SignFlipMethod
from execretrieval_mteb.analysis.synthetic import synthetic_reports, synthetic_systems
from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
from execretrieval_mteb.dataset.io import load_dataset

PAIR_SAMPLE = 24


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=24)
    parser.add_argument("--large", type=int, default=100, help="systems of the statistics-only run (0 skips it)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of our route (the median is reported)")
    parser.add_argument("--no-reference", action="store_true", help="skip the scipy route")
    args = parser.parse_args()
    config = StatsConfig()

    dataset = load_dataset(BUNDLED_DATASET_DIR)
    start = time.perf_counter()
    systems = synthetic_systems(dataset, args.systems, seed=0)
    reports = [s.report for s in systems]
    frozen = {s.report.model.name: s.frozen for s in systems}
    embeddings = {s.report.model.name: s.embeddings for s in systems}
    print(f"setup (synthetic systems and their reports, not timed below): {time.perf_counter() - start:.1f} s")

    rounds: list[tuple[float, float]] = []
    stats_rounds: list[tuple[float, float]] = []
    result = None
    for _ in range(args.repeat):
        with _Timer() as timer:
            compute_statistics(reports, config)
        stats_rounds.append(timer.times)
        with _Timer() as timer:
            result = analyse(reports, dataset, frozen=frozen, embeddings=embeddings, config=config)
        rounds.append(timer.times)
    assert result is not None
    n_models, n_metrics = len(result.models), len(result.statistics.scores.metrics)
    print(f"{n_models} systems x {len(dataset.queries)} queries: {n_models * n_metrics} intervals, "
          f"{len(result.pairs)} pair tests ({len(result.pairs) // n_metrics} pairs x {n_metrics} metrics), every analysis")
    print(f"ours, everything (analyse):            {_median(rounds)}  (rounds, wall: "
          f"{', '.join(f'{w:.2f}' for w, _ in rounds)}; target < 10 s)")
    print(f"  of which intervals + pairwise tests: {_median(stats_rounds)}")

    with tempfile.TemporaryDirectory() as folder, _Timer() as timer:
        save_figures(result, Path(folder))
        render_report(result)
    print(f"figures (7 x PNG + SVG) and report.md: {_median([timer.times])}  (not part of the set)")

    if args.large:
        _large(dataset, args.large, config)
    if args.no_reference:
        return
    scores = result.statistics.scores
    worst = 0.0
    reference_timer = _Timer().__enter__()
    for a, model in enumerate(scores.models):
        for m, key in enumerate(scores.metrics):
            column = scores.values[:, a, m]
            ci = bootstrap((column,), np.mean, n_resamples=config.bootstrap_replicates, confidence_level=config.confidence,
                           method="percentile", vectorized=True, random_state=config.seed).confidence_interval
            ours = result.intervals[model][key]
            worst = max(worst, abs(ci.low - ours.low), abs(ci.high - ours.high))
    reference_timer.__exit__()
    reference = reference_timer.times
    print(f"scipy.stats.bootstrap per model and metric, intervals only ({n_models * n_metrics} calls): {_median([reference])}")
    print(f"  largest difference of an interval end from ours (independent draws): {worst:.4f}")
    sample = [p for p in result.pairs][:: max(1, len(result.pairs) // PAIR_SAMPLE)][:PAIR_SAMPLE]
    start = time.perf_counter()
    for pair in sample:
        a, b, m = scores.models.index(pair.a), scores.models.index(pair.b), scores.metrics.index(pair.metric)
        bootstrap((scores.values[:, a, m], scores.values[:, b, m]), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                  paired=True, n_resamples=config.bootstrap_replicates, method="percentile", vectorized=True,
                  random_state=config.seed)
    per_pair = (time.perf_counter() - start) / len(sample)
    print(f"  plus paired intervals of the {len(result.pairs)} pair tests the same way: ~{per_pair * len(result.pairs):.0f} s "
          f"(extrapolated from {len(sample)} calls), before any McNemar or permutation test")
    ours_wall, ours_cpu = (statistics.median(x) for x in zip(*stats_rounds, strict=True))
    print(f"speed-up on the intervals: {reference[0] / ours_wall:.0f}x wall, {reference[1] / ours_cpu:.0f}x CPU "
          f"(and ours computes all {len(result.pairs)} pair tests in that time too)")


def _large(dataset: object, count: int, config: StatsConfig) -> None:
    start = time.perf_counter()
    reports = synthetic_reports(dataset, count, seed=1)  # type: ignore[arg-type]
    print(f"setup of {count} systems (reports only, not timed): {time.perf_counter() - start:.1f} s")
    with _Timer() as timer:
        stats = compute_statistics(reports, config)
    n_metrics = len(stats.scores.metrics)
    methods = {m: sum(1 for p in stats.pairs if p.method is m) for m in SignFlipMethod}
    mcnemar = sum(1 for p in stats.pairs if p.method is None)
    significant = sum(1 for p in stats.pairs if p.significant(config.alpha))
    print(f"{count} systems: {count * n_metrics} intervals, {len(stats.pairs)} pair tests "
          f"({len(stats.pairs) // n_metrics} pairs x {n_metrics} metrics), each with its paired interval: "
          f"{_median([timer.times])}  (target < 60 s)")
    print(f"  p-values: McNemar {mcnemar}, " + ", ".join(f"{m.value} {n}" for m, n in methods.items()) +
          f"; Holm p < {config.alpha}: {significant}")


class _Timer:
    """Wall-clock and process CPU seconds (all threads) of a block."""

    def __enter__(self) -> _Timer:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.times = (time.perf_counter() - self._wall, time.process_time() - self._cpu)


def _median(rounds: list[tuple[float, float]]) -> str:
    wall, cpu = (statistics.median(x) for x in zip(*rounds, strict=True))
    return f"{wall:6.2f} s wall, {cpu:6.2f} s CPU"


if __name__ == "__main__":
    main()
