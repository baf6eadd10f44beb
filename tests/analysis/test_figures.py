"""Every figure at 2, 4 and 24 models: drawn with the renderer, no text outside the figure and no two
texts overlapping (tick labels, titles, axis labels, legend entries)."""

from __future__ import annotations

import dataclasses
import itertools

import matplotlib
import pytest
from matplotlib.text import Text

from execretrieval_mteb.analysis.compute import analyse
from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.figures import FIGURES, SVG_HASHSALT
from execretrieval_mteb.analysis.result import AnalysisResult
from execretrieval_mteb.analysis.synthetic import synthetic_systems
from execretrieval_mteb.dataset.io import BuiltDataset

FAST = StatsConfig(bootstrap_replicates=200, directions=200)
NAMES = ["sentence-transformers/all-MiniLM-L6-v2", "BAAI/bge-base-en-v1.5", "Qwen/Qwen3-Embedding-8B",
         "intfloat/e5-base-v2", "thenlper/gte-large", "sentence-transformers/multi-qa-mpnet-base-dot-v1"]


@pytest.fixture(scope="module")
def results(bundled: BuiltDataset) -> dict[int, AnalysisResult]:
    systems = synthetic_systems(bundled, 24, seed=3, depth=20)
    renamed = []
    for index, system in enumerate(systems):
        name = f"{NAMES[index % len(NAMES)]}-{index:02d}"
        renamed.append(dataclasses.replace(system, report=dataclasses.replace(
            system.report, model=dataclasses.replace(system.report.model, name=name))))
    out = {}
    for count in (2, 4, 24):
        chosen = renamed[:count]
        out[count] = analyse([s.report for s in chosen], bundled,
                             frozen={s.report.model.name: s.frozen for s in chosen},
                             embeddings={s.report.model.name: s.embeddings for s in chosen}, config=FAST)
    return out


def _overlap(a: object, b: object) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)  # type: ignore[attr-defined]
    height = min(a.y1, b.y1) - max(a.y0, b.y0)  # type: ignore[attr-defined]
    return max(width, 0.0) * max(height, 0.0)


def _drawn_texts(figure: object) -> list[Text]:
    """Every visible non-empty text, tick labels only for ticks inside the view limits (the others are not drawn)."""
    ticks, drawn = set(), []
    for ax in figure.axes:  # type: ignore[attr-defined]
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                labels = (tick.label1, tick.label2)
                ticks.update(id(label) for label in labels)
                inside = low - 1e-9 * max(1.0, abs(high - low)) <= tick.get_loc() <= high + 1e-9 * max(1.0, abs(high - low))
                if inside and ax.get_visible():
                    drawn += [label for label in labels if label.get_visible() and label.get_text().strip()]
    others = [t for t in figure.findobj(Text)  # type: ignore[attr-defined]
              if id(t) not in ticks and t.get_visible() and t.get_text().strip()
              and (t.axes is None or t.axes.get_visible())]
    return drawn + others


@pytest.mark.parametrize("count", [2, 4, 24])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_text_is_clipped_or_overlaps(results: dict[int, AnalysisResult], name: str, count: int) -> None:
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT, "font.size": 9, "axes.titlesize": 10}):
        figure = FIGURES[name](results[count])
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        texts = _drawn_texts(figure)
        assert texts
        frame = figure.bbox
        boxes = []
        for text in texts:
            box = text.get_window_extent(renderer)
            assert box.x0 >= frame.x0 - 1 and box.y0 >= frame.y0 - 1, f"{name}: {text.get_text()!r} clipped"
            assert box.x1 <= frame.x1 + 1 and box.y1 <= frame.y1 + 1, f"{name}: {text.get_text()!r} clipped"
            boxes.append((text.get_text(), box))
        for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
            assert _overlap(a, b) <= 1.0, f"{name} at {count} models: {ta!r} overlaps {tb!r}"
