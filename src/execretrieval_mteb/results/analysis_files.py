"""The statistics a results folder holds beside its evaluations, read defensively.

The analysis step (``execretrieval_mteb.analysis``, run by ``run``/``evaluate``/``report``) writes
into ``<results>/analysis/``::

    confidence_intervals.json   {model: {metric: {mean, ci95_low, ci95_high, n, bootstrap_samples, seed}}}
    pairwise_tests.json         {"A vs B": {metric: {delta, test, p, p_holm, bootstrap_ci_95, ...}}}  (A above B)
    figures/*.png, *.svg

A folder may lack them (an older run, or the analysis step not installed), or hold them for another
set of models or another dataset (the folder's last ``finish``). They are used only when they
describe exactly the given evaluations: every model present, and every interval's ``mean`` equal to
that model's score (the analysis writes the leaderboard's number there). Otherwise they are left
out, and ``notes`` says why; nothing is guessed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.intervals import Interval
from ..evaluation.model_report import ModelReport
from ..evaluation.standing import differs
from .results_folder import ResultsFolder

CONFIDENCE_INTERVALS, PAIRWISE_TESTS, FIGURES = "confidence_intervals.json", "pairwise_tests.json", "figures"
FIGURE_SUFFIXES = (".png", ".svg")

@dataclass(frozen=True)
class AnalysisFiles:
    intervals: Mapping[str, Mapping[str, Interval]] = field(default_factory=dict)
    """model -> metric key -> its 95 % bootstrap interval."""
    pairwise: Mapping[tuple[str, str], Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    """(A, B) -> metric key -> the test's record (``p_holm``, ``delta``, ``test``, ...), as written."""
    figures: tuple[Path, ...] = ()
    sources: tuple[Path, ...] = ()
    """The JSON files that were used."""
    notes: tuple[str, ...] = ()
    """What was left out, and why."""

    def p_holm(self, a: str, b: str, metric: str) -> float | None:
        """Holm-adjusted p of A against B on ``metric`` (either order), None when not tested."""
        record = self.pairwise.get((a, b), {}).get(metric) or self.pairwise.get((b, a), {}).get(metric)
        value = (record or {}).get("p_holm")
        return float(value) if isinstance(value, (int, float)) else None

    def differs(self, a: str, b: str, metric: str) -> bool | None:
        return differs(self.p_holm(a, b, metric))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def read_analysis(folder: ResultsFolder, reports: Sequence[ModelReport]) -> AnalysisFiles:
    """The folder's intervals, pairwise tests and figures, when they describe exactly ``reports``."""
    base = folder.analysis
    path = base / CONFIDENCE_INTERVALS
    where = f"{base.name}/{CONFIDENCE_INTERVALS}"  # notes name files relative to the folder: they go on the card
    if not path.is_file():
        return AnalysisFiles(notes=(f"{where}: absent (no intervals or significance tests)",))
    blob = _read_json(path)
    intervals: dict[str, dict[str, Interval]] = {}
    stale = None
    for report in reports:
        name = report.model.name
        per_model = blob.get(name) if isinstance(blob, dict) else None
        if not isinstance(per_model, dict):
            stale = f"no intervals for {name}"
            break
        means = report.means()
        for metric, value in means.items():
            item = per_model.get(metric)
            try:
                interval = Interval.from_json(item)
            except (TypeError, KeyError, ValueError):
                stale = f"no interval for {name} on {metric}"
                break
            if not math.isclose(interval.mean, value, rel_tol=1e-9, abs_tol=1e-12):
                stale = f"{name}'s {metric} is {interval.mean} there but {value} in its evaluation"
                break
            intervals.setdefault(name, {})[metric] = interval
        if stale:
            break
    if stale is not None:
        return AnalysisFiles(notes=(f"{where}: left out, it describes other results ({stale}); rerun "
                                    "`execretrieval report` on this folder",))
    names = {r.model.name for r in reports}
    pairwise: dict[tuple[str, str], dict[str, Any]] = {}
    sources = [path]
    notes = []
    pair_path = base / PAIRWISE_TESTS
    pair_blob = _read_json(pair_path) if pair_path.is_file() else None
    if isinstance(pair_blob, dict):
        for label, per_metric in pair_blob.items():
            a, sep, b = str(label).partition(" vs ")
            if sep and a in names and b in names and isinstance(per_metric, dict):
                pairwise[(a, b)] = per_metric
        sources.append(pair_path)
    else:
        notes.append(f"{base.name}/{PAIRWISE_TESTS}: absent or unreadable (no significance marks)")
    figures = tuple(sorted(p for p in (base / FIGURES).glob("*") if p.suffix in FIGURE_SUFFIXES and p.is_file()))
    return AnalysisFiles(intervals, pairwise, figures, tuple(sources), tuple(notes))
