"""Figures of the report, as PNG and SVG, byte-identical for identical inputs.

matplotlib is imported only inside these functions (importing the package draws nothing and sets
no backend). Figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas, never through
pyplot, so no global state is touched; SVG ids are salted with a fixed ``svg.hashsalt``, text is
drawn as paths, and neither format records a date or the software version.

- ``exec_at_1``: exec@1 bars with 95 % intervals, exec@5 as markers;
- ``exec_at_k``: exec@k against k per model;
- ``per_domain``: mean exec@1 across models per domain with its 95 % query-bootstrap interval, each
  model's own mean as a dot;
- ``deception_by_bug_type``: deception per bug type pooled over the dense models (n mutants per
  type in the labels), each model as a dot, the pooled overall rate and the 50 % line;
- ``pool_density``: expected exec@1 against the number of own mutants kept;
- ``similarity_gap``: histogram of canonical minus best-mutant score, one panel per model;
- ``family_accuracy``: family accuracy against the geometric chance level (the floor), with the
  construction property (canonical = unique medoid) marked as such.

Every figure uses matplotlib's constrained layout, with legends outside the axes in the figure's
own space, so nothing overlaps or is clipped at 2 or 24 models (the tests check every text's
bounding box with the renderer).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from .not_computed import NotComputed
from .result import AnalysisResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SVG_HASHSALT = "execretrieval-analysis"


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _colors(n: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab20" if n > 10 else "tab10"]
    return [cmap(i % cmap.N) for i in range(n)]


def _legend_below(figure: Figure, ax: Any, columns: int, fontsize: float = 8) -> None:
    """The axes' legend in the figure's space below the plot (constrained layout makes room for it)."""
    handles, labels = ax.get_legend_handles_labels()
    # as many columns as the widest entry allows across the figure (about 0.6 em per character plus the handle)
    entry = max((len(label) for label in labels), default=1) * 0.6 * fontsize + 3.5 * fontsize
    fit = int((figure.get_figwidth() * 72 - 24) // entry)
    figure.legend(handles, labels, loc="outside lower center", ncol=max(1, min(columns, fit, len(labels))),
                  fontsize=fontsize, frameon=False)


def exec_at_1_bars(result: AnalysisResult) -> Figure:
    models = list(result.models)
    figure = _figure(7.5, 2.0 + 0.3 * len(models))
    ax = figure.add_subplot()
    y = np.arange(len(models))[::-1]
    intervals = [result.intervals[m][MAIN_SCORE] for m in models]
    means = np.array([iv.mean for iv in intervals])
    errors = np.array([[iv.mean - iv.low for iv in intervals], [iv.high - iv.mean for iv in intervals]])
    ax.barh(y, means, xerr=errors, color="#4c72b0", ecolor="black", capsize=3, label="exec@1 (95 % interval)")
    at5 = Metric.EXEC.key(5)
    if all(at5 in result.intervals[m] for m in models):
        ax.scatter([result.intervals[m][at5].mean for m in models], y, marker="D", color="#dd8452", zorder=3, label="exec@5")
    ax.set_yticks(y, models, fontsize=8)
    ax.set_ylim(-0.7, len(models) - 0.3)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of queries")
    ax.set_title("exec@1 with 95 % bootstrap intervals, exec@5 markers")
    _legend_below(figure, ax, 2)
    return figure


def _curves(result: AnalysisResult, lines: dict[str, tuple[list[int], list[float]]], *, xlabel: str, ylabel: str,
            title: str, legend: Literal["lower right", "upper right"]) -> Figure:
    """One line per model (leaderboard order) of share-valued points."""
    figure = _figure(6.5, 4.2)
    ax = figure.add_subplot()
    for model, color in zip(result.models, _colors(len(result.models)), strict=True):
        xs, ys = lines[model]
        ax.plot(xs, ys, marker="o", color=color, label=model)
    ax.set_xticks(sorted({x for xs, _ in lines.values() for x in xs}))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(result.models) <= 8:
        ax.legend(fontsize=7, loc=legend)
    else:
        _legend_below(figure, ax, 3, fontsize=7)
        figure.set_figheight(4.2 + 0.13 * len(result.models))
    return figure


def exec_at_k_curves(result: AnalysisResult) -> Figure:
    lines = {}
    for model in result.models:
        ks = [k for k in K_VALUES if Metric.EXEC.key(k) in result.intervals[model]]
        lines[model] = (ks, [result.intervals[model][Metric.EXEC.key(k)].mean for k in ks])
    return _curves(result, lines, xlabel="k", ylabel="exec@k", title="exec@k", legend="lower right")


def per_domain_intervals(result: AnalysisResult) -> Figure:
    pd = result.per_domain
    domains = list(pd.domains)
    figure = _figure(7.0, 2.0 + 0.4 * len(domains))
    ax = figure.add_subplot()
    y = np.arange(len(domains))[::-1]
    for model, color in zip(result.models, _colors(len(result.models)), strict=True):
        ax.scatter([pd.by_model[model][d][MAIN_SCORE] for d in domains], y, s=10, color=color, alpha=0.7,
                   label=model if len(result.models) <= 8 else None, zorder=2)
    means = np.array([pd.across_models[d][MAIN_SCORE] for d in domains])
    cis = np.array([pd.across_models_ci[d][MAIN_SCORE] for d in domains])
    ax.errorbar(means, y, xerr=np.abs(np.vstack([means - cis[:, 0], cis[:, 1] - means])), fmt="o", color="black",
                capsize=4, zorder=3, label="mean of models (95 % interval)")
    ax.set_yticks(y, [f"{d} (n {pd.queries[d]})" for d in domains], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("exec@1")
    ax.set_title("exec@1 by domain, with query-bootstrap intervals" + ("" if len(result.models) <= 8 else "; dots: models"))
    _legend_below(figure, ax, 3)
    return figure


def deception_by_bug_type(result: AnalysisResult) -> Figure:
    pooled = result.deception_pooled
    types = sorted({t for m in result.models for t in result.deception[m].by_bug_type})
    counts = _mutants_per_type(result)
    figure = _figure(7.5, 2.6 + 0.45 * len(types))
    ax = figure.add_subplot()
    y = np.arange(len(types))[::-1]
    if result.dense_models:
        ax.barh(y, [(pooled.by_bug_type[t].rate or 0.0) if t in pooled.by_bug_type else 0.0 for t in types],
                color="#c44e52", alpha=0.6, label=f"dense models pooled ({len(result.dense_models)})")
        if pooled.overall.rate is not None:
            ax.axvline(pooled.overall.rate, color="#c44e52", linestyle="--", linewidth=1,
                       label=f"dense pooled, all types ({100 * pooled.overall.rate:.1f} %)")
    ax.axvline(0.5, color="black", linestyle=":", linewidth=1, label="50 %")
    many = len(result.models) > 8
    for model, color in zip(result.models, _colors(len(result.models)), strict=True):
        rates = [result.deception[model].by_bug_type[t].rate if t in result.deception[model].by_bug_type else None
                 for t in types]
        ax.scatter([np.nan if r is None else r for r in rates], y, s=12, color=color, zorder=3,
                   label=None if many else model)
    ax.set_yticks(y, [f"{t} (n {counts.get(t, 0)})" for t in types], fontsize=8)
    ax.set_ylim(-0.7, len(types) - 0.3)
    ax.set_xlim(0, 1.02)
    ax.set_xlabel("share of (query, mutant) pairs deceived")
    ax.set_title("Deception by bug type: mutant scored at least the canonical" + ("; dots: models" if many else ""))
    _legend_below(figure, ax, 3)
    return figure


def _mutants_per_type(result: AnalysisResult) -> dict[str, int]:
    lb = result.length_bias_pooled
    return {bt: sum(groups.values()) for bt, groups in lb.mutants_by_bug_type.items()}


def pool_density_curves(result: AnalysisResult) -> Figure:
    lines = {}
    for model in result.models:
        pool = result.pool_density[model]
        lines[model] = (list(pool.densities), [np.nan if v is None else v for v in pool.expected_exec_at_1])
    return _curves(result, lines, xlabel="own mutants kept in the pool (d)", ylabel="expected exec@1",
                   title="Pool density: expected exec@1 with d of its own mutants kept", legend="upper right")


def similarity_gap_histograms(result: AnalysisResult) -> Figure:
    models = list(result.models)
    columns = min(4, len(models))
    rows = math.ceil(len(models) / columns)
    figure = _figure(2.6 * columns + 0.6, 2.2 * rows + 0.9)
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, ax in enumerate(axes.ravel()):
        if index >= len(models):
            ax.set_visible(False)
            continue
        model = models[index]
        gap = result.similarity_gap[model]
        gaps = gap.known
        if gaps.size:
            ax.hist(gaps, bins=40, color="#55a868")
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{_short(model)}\n{_pct_text(gap.share_mutant_above)}: canonical below a mutant", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.locator_params(axis="x", nbins=4)
    figure.supxlabel("canonical score minus best mutant score (model's own units)", fontsize=8)
    figure.supylabel("queries", fontsize=8)
    figure.suptitle("Canonical vs best mutant, per query\n(left of 0: a mutant scores above the canonical)", fontsize=9)
    return figure


def _short(name: str, width: int = 30) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _pct_text(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def family_accuracy_bars(result: AnalysisResult) -> Figure:
    models = list(result.models)
    figure = _figure(7.5, 2.2 + 0.3 * len(models))
    ax = figure.add_subplot()
    y = np.arange(len(models))[::-1]
    accuracy = [result.family_accuracy[m].accuracy for m in models]
    ax.barh(y, [np.nan if a is None else a for a in accuracy], color="#8172b3", label="family accuracy")
    chance = [c.chance if not isinstance(c, NotComputed) else np.nan for c in (result.geometric_chance[m] for m in models)]
    if not np.all(np.isnan(chance)):
        ax.scatter(chance, y, marker="|", s=160, linewidths=2, color="black", zorder=3, label="geometric chance (floor)")
    ax.axvline(result.family_accuracy[models[0]].naive_chance, color="grey", linestyle=":", label="naive chance 1/(1+mutants)")
    base = result.structure_baseline
    ax.axvline(base.accuracy, color="#c44e52", linestyle="--", linewidth=1.5,
               label=f"construction property: canonical = unique medoid ({base.canonical_unique_medoid}/{base.per_query.size})")
    ax.set_yticks(y, models, fontsize=8)
    ax.set_ylim(-0.7, len(models) - 0.3)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("share of queries whose canonical outranks all its own mutants")
    ax.set_title("Family accuracy against the geometric chance level")
    _legend_below(figure, ax, 2)
    return figure


FIGURES: dict[str, Callable[[AnalysisResult], Figure]] = {
    "exec_at_1": exec_at_1_bars,
    "exec_at_k": exec_at_k_curves,
    "per_domain": per_domain_intervals,
    "deception_by_bug_type": deception_by_bug_type,
    "pool_density": pool_density_curves,
    "similarity_gap": similarity_gap_histograms,
    "family_accuracy": family_accuracy_bars,
}


def save_figures(result: AnalysisResult, folder: Path) -> list[Path]:
    """Every figure as ``folder/<name>.png`` and ``.svg``; returns the paths written."""
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT, "svg.fonttype": "path", "font.size": 9, "axes.titlesize": 10}):
        for name, draw in FIGURES.items():
            figure = draw(result)
            for suffix, metadata in ((".png", {"Software": None}), (".svg", {"Date": None, "Creator": None})):
                path = folder / f"{name}{suffix}"
                figure.savefig(path, format=suffix[1:], metadata=metadata, bbox_inches="tight")  # no text outside the frame
                written.append(path)
    return written
