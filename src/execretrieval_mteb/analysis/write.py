"""``write_analysis``: compute everything and write it into one folder.

Files (all deterministic: identical inputs give byte-identical files)::

    confidence_intervals.json   {model: {metric: {mean, ci95_low, ci95_high, n, bootstrap_samples, seed}}}
    pairwise_tests.json         {"A vs B": {metric: {a_only, b_only, both, neither, a_rate, b_rate, delta,
                                  mcnemar_exact_p, bootstrap_ci_95, test, p, p_holm, ...}}}   (see ``pairwise``)
    analyses.json               every analysis, machine-readable (see ``result``)
    report.md                   tables, figures and "How to read this"
    figures/<name>.png, .svg    see ``figures``
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset, write_text_atomic
from ..evaluation.model_report import FrozenScores, ModelReport
from .compute import analyse
from .config import StatsConfig
from .geometric_chance import FamilyEmbeddings
from .intervals import intervals_json
from .not_computed import NotComputed
from .pairwise import pairwise_json
from .report_md import render_report
from .result import AnalysisResult
from .stacked import StackedScores
from .truncation import TokenLengths

CONFIDENCE_INTERVALS, PAIRWISE_TESTS, ANALYSES, REPORT, FIGURES = (
    "confidence_intervals.json", "pairwise_tests.json", "analyses.json", "report.md", "figures",
)


def _finite(value: Any) -> Any:
    """NaN and infinities become null (JSON has neither); everything else is kept."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def dumps(blob: Any) -> str:
    return json.dumps(_finite(blob), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def write_analysis(
    out_dir: Path,
    reports: Sequence[ModelReport],
    dataset: BuiltDataset,
    frozen: Mapping[str, FrozenScores] | None = None,
    stacked: Mapping[str, StackedScores] | None = None,
    embeddings: Mapping[str, FamilyEmbeddings] | None = None,
    token_lengths: Mapping[str, TokenLengths | NotComputed] | None = None,
    *,
    config: StatsConfig = StatsConfig(),
    figures: bool = True,
) -> AnalysisResult:
    """Compute every statistic and analysis of ``reports`` and write them into ``out_dir``.

    ``frozen``, ``stacked``, ``embeddings`` and ``token_lengths`` are keyed by model name
    (``ModelReport.model.name``); any of them may be missing for some or all models, and the analyses that need them say so.
    """
    out_dir = Path(out_dir)
    result = analyse(reports, dataset, frozen=frozen, stacked=stacked, embeddings=embeddings,
                     token_lengths=token_lengths, config=config)
    written = []
    for name, blob in ((CONFIDENCE_INTERVALS, intervals_json(result.intervals)),
                       (PAIRWISE_TESTS, pairwise_json(result.pairs)),
                       (ANALYSES, result.analyses_json())):
        write_text_atomic(out_dir / name, dumps(blob))
        written.append(out_dir / name)
    if figures:
        from .figures import save_figures

        written += save_figures(result, out_dir / FIGURES)
    write_text_atomic(out_dir / REPORT, render_report(result, [r.dataset_fingerprint for r in reports]))
    written.append(out_dir / REPORT)
    return dataclasses.replace(result, files=tuple(written))
