"""Figures of the report, as PNG and SVG, byte-identical for identical inputs.

matplotlib is imported only inside these functions (importing the package draws nothing and sets
no backend). Figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas, never through
pyplot, so no global state is touched; SVG ids are salted with a fixed ``svg.hashsalt``, text is
drawn as paths, and neither format records a date or the software version.

- ``exec_at_1``: exec@1 bars with 95 % intervals, exec@5 as markers;
- ``exec_at_k``: exec@k against k per model;
- ``per_domain``: heatmap of exec@1 by model and domain;
- ``deception_by_bug_type``: pooled deception per bug type, each model as a dot;
- ``pool_density``: expected exec@1 against the number of own mutants kept;
- ``similarity_gap``: histogram of canonical minus best-mutant score, one panel per model;
- ``family_accuracy``: family accuracy against the geometric chance level and the structure baseline.
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

    figure = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(figure)
    return figure


def _colors(n: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab20" if n > 10 else "tab10"]
    return [cmap(i % cmap.N) for i in range(n)]


def exec_at_1_bars(result: AnalysisResult) -> Figure:
    models = list(result.models)
    figure = _figure(7.0, 1.2 + 0.32 * len(models))
    ax = figure.add_subplot()
    y = np.arange(len(models))[::-1]
    intervals = [result.intervals[m][MAIN_SCORE] for m in models]
    means = np.array([iv.mean for iv in intervals])
    errors = np.array([[iv.mean - iv.low for iv in intervals], [iv.high - iv.mean for iv in intervals]])
    ax.barh(y, means, xerr=errors, color="#4c72b0", ecolor="black", capsize=3, label="exec@1 (95 % interval)")
    at5 = Metric.EXEC.key(5)
    if all(at5 in result.intervals[m] for m in models):
        ax.scatter([result.intervals[m][at5].mean for m in models], y, marker="D", color="#dd8452", zorder=3, label="exec@5")
    ax.set_yticks(y, models)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of queries")
    ax.set_title("exec@1 with 95 % bootstrap intervals; exec@5 markers")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 1.0 / (3 + len(models))), ncol=2, frameon=False)
    figure.tight_layout()
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
    ax.legend(fontsize=7, loc=legend, ncol=1 + len(result.models) // 12)
    figure.tight_layout()
    return figure


def exec_at_k_curves(result: AnalysisResult) -> Figure:
    lines = {}
    for model in result.models:
        ks = [k for k in K_VALUES if Metric.EXEC.key(k) in result.intervals[model]]
        lines[model] = (ks, [result.intervals[model][Metric.EXEC.key(k)].mean for k in ks])
    return _curves(result, lines, xlabel="k", ylabel="exec@k", title="exec@k", legend="lower right")


def per_domain_heatmap(result: AnalysisResult) -> Figure:
    domains = list(result.per_domain.domains)
    models = list(result.models)
    values = np.array([[result.per_domain.by_model[m][d][MAIN_SCORE] for d in domains] for m in models])
    figure = _figure(1.8 + 0.75 * len(domains), 1.4 + 0.3 * len(models))
    ax = figure.add_subplot()
    image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=max(1e-9, float(values.max(initial=0.0))), aspect="auto")
    ax.set_xticks(range(len(domains)), domains, rotation=40, ha="right")
    ax.set_yticks(range(len(models)), models)
    for i in range(len(models)):
        for j in range(len(domains)):
            ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=6,
                    color="white" if values[i, j] < 0.6 * values.max(initial=0.0) else "black")
    figure.colorbar(image, ax=ax, label="exec@1")
    ax.set_title("exec@1 by domain")
    figure.tight_layout()
    return figure


def deception_by_bug_type(result: AnalysisResult) -> Figure:
    types = sorted(result.deception_pooled.by_bug_type)
    figure = _figure(7.0, 4.4 + 0.12 * len(result.models))
    ax = figure.add_subplot()
    x = np.arange(len(types))
    pooled = [result.deception_pooled.by_bug_type[t].rate or 0.0 for t in types]
    ax.bar(x, pooled, color="#c44e52", alpha=0.6, label="all models pooled")
    for model, color in zip(result.models, _colors(len(result.models)), strict=True):
        rates = [result.deception[model].by_bug_type[t].rate for t in types]
        ax.scatter(x, [np.nan if r is None else r for r in rates], s=12, color=color, label=model, zorder=3)
    ax.set_xticks(x, types, rotation=25, ha="right")
    ax.set_ylim(0, 1.04)
    ax.set_ylabel("share of (query, mutant) pairs deceived")
    ax.set_title("Deception by bug type: mutant scored at least the canonical")
    ax.legend(fontsize=6, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)
    figure.tight_layout()
    return figure


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
    figure = _figure(2.4 * columns, 1.9 * rows + 0.4)
    for index, model in enumerate(models):
        ax = figure.add_subplot(rows, columns, index + 1)
        gaps = result.similarity_gap[model].known
        if gaps.size:
            ax.hist(gaps, bins=40, color="#55a868")
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_title(model, fontsize=7)
        ax.tick_params(labelsize=6)
    figure.suptitle("canonical score minus best mutant score, per query "
                    "(at or left of 0: a mutant scores at least the canonical)", fontsize=9)
    figure.tight_layout()
    return figure


def family_accuracy_bars(result: AnalysisResult) -> Figure:
    models = list(result.models)
    figure = _figure(7.0, 1.4 + 0.32 * len(models))
    ax = figure.add_subplot()
    y = np.arange(len(models))[::-1]
    accuracy = [result.family_accuracy[m].accuracy for m in models]
    ax.barh(y, [np.nan if a is None else a for a in accuracy], color="#8172b3", label="family accuracy")
    chance = [c.chance if not isinstance(c, NotComputed) else np.nan for c in (result.geometric_chance[m] for m in models)]
    ax.scatter(chance, y, marker="|", s=120, color="black", zorder=3, label="geometric chance")
    ax.axvline(result.family_accuracy[models[0]].naive_chance, color="grey", linestyle=":", label="naive chance")
    ax.axvline(result.structure_baseline.accuracy, color="#c44e52", linestyle="--", label="structure-only medoid")
    ax.set_yticks(y, models)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of queries whose canonical outranks all its own mutants")
    ax.set_title("Family accuracy against its chance levels")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 1.0 / (3 + len(models))), ncol=4, frameon=False)
    figure.tight_layout()
    return figure


FIGURES: dict[str, Callable[[AnalysisResult], Figure]] = {
    "exec_at_1": exec_at_1_bars,
    "exec_at_k": exec_at_k_curves,
    "per_domain": per_domain_heatmap,
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
