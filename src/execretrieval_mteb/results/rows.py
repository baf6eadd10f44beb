"""The leaderboard row (one type for every table of models), its order and its significance mark.

A row is one model on one dataset: what ``leaderboard.md``/``.json``, the dataset card's
leaderboard, the static site and the reference results show, and what ``execretrieval submit``
writes as ``leaderboard/rows/<org__model>.json``::

    {"schema_version": 1, "model", "revision", "prompts", "similarity",
     "dataset": {"repo_id", "revision", "fingerprint"}, "n_queries",
     "metrics": {metric key: mean},
     "intervals": {metric key: {"mean", "low", "high"}}          (empty without the statistics)
     "pairwise": {other model: {metric key: Holm-adjusted p}},   (the tests run with the others of its folder)
     "model_meta": {"reference", "n_parameters", "embed_dim", "max_tokens", "license"},   (mteb's model_meta.json)
     "domains": {domain: {"mean", "low", "high"}}}               (exec@1 per domain, 95 % bootstrap interval)

``model_meta`` and ``domains`` are optional (empty in rows written before they existed).

Rows are ordered, and adjacent rows marked as differing, by ``evaluation.standing`` (the one
order and threshold the statistics use too). They are built from evaluation reports (``of``) and,
when there are statistics, their intervals and pairwise tests: computed by the analysis in
``outputs.finish``, or read back from a folder's analysis files (``rows_from``) when they
describe exactly those evaluations. No timestamps or paths, so the same results give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.intervals import Interval
from ..errors import ExecRetrievalError
from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from ..evaluation.model_report import ModelReport
from ..evaluation.standing import differs, in_standing_order
from .analysis_files import AnalysisFiles

SCHEMA_VERSION = 1


class RowError(ExecRetrievalError):
    """A leaderboard row file is unreadable; the message names it and the fix."""


@dataclass(frozen=True)
class Row:
    model: str
    revision: str | None
    prompts: Mapping[str, str]
    similarity: str | None
    dataset_repo: str | None
    """The Hub repository of the release (known when submitting; None for a local results folder)."""
    dataset_revision: str
    dataset_fingerprint: str
    n_queries: int
    metrics: Mapping[str, float]
    intervals: Mapping[str, Interval] = field(default_factory=dict)
    """metric key -> its 95 % bootstrap interval (empty without statistics)."""
    pairwise: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """other model -> metric key -> Holm-adjusted p of the paired test (empty without statistics)."""
    model_meta: Mapping[str, Any] = field(default_factory=dict)
    """From mteb's ``model_meta.json``: ``reference`` (the model's page), ``n_parameters``, ``embed_dim``,
    ``max_tokens``, ``license`` (each may be None)."""
    domains: Mapping[str, Interval] = field(default_factory=dict)
    """exec@1 over each domain's queries with its 95 % bootstrap interval (``leaderboard.model_info``)."""

    @classmethod
    def of(cls, report: ModelReport, *, intervals: Mapping[str, Interval] | None = None,
           pairwise: Mapping[str, Mapping[str, float]] | None = None, dataset_repo: str | None = None) -> Row:
        """The row of one evaluation report, with its statistics when given."""
        return cls(
            model=report.model.name, revision=report.model.revision, prompts=dict(report.model.prompts),
            similarity=report.model.similarity, dataset_repo=dataset_repo, dataset_revision=report.dataset_revision,
            dataset_fingerprint=report.dataset_fingerprint, n_queries=len(report.query_ids), metrics=report.means(),
            intervals=dict(intervals or {}), pairwise={o: dict(ps) for o, ps in (pairwise or {}).items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "model": self.model,
            "revision": self.revision,
            "prompts": dict(self.prompts),
            "similarity": self.similarity,
            "dataset": {"repo_id": self.dataset_repo, "revision": self.dataset_revision,
                        "fingerprint": self.dataset_fingerprint},
            "n_queries": self.n_queries,
            "metrics": dict(self.metrics),
            "intervals": {k: {"mean": i.mean, "low": i.low, "high": i.high} for k, i in self.intervals.items()},
            "pairwise": {other: dict(ps) for other, ps in sorted(self.pairwise.items())},
            "model_meta": dict(self.model_meta),
            "domains": {d: {"mean": i.mean, "low": i.low, "high": i.high} for d, i in sorted(self.domains.items())},
        }

    @staticmethod
    def from_json(blob: Mapping[str, Any]) -> Row:
        if blob.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"schema_version {blob.get('schema_version')!r}, expected {SCHEMA_VERSION}")
        repo = blob["dataset"]["repo_id"]
        return Row(
            model=str(blob["model"]), revision=blob.get("revision"), prompts=blob.get("prompts") or {},
            similarity=blob.get("similarity"), dataset_repo=None if repo is None else str(repo),
            dataset_revision=str(blob["dataset"]["revision"]), dataset_fingerprint=str(blob["dataset"]["fingerprint"]),
            n_queries=int(blob["n_queries"]), metrics={k: float(v) for k, v in blob["metrics"].items()},
            intervals={k: Interval(float(v["mean"]), float(v["low"]), float(v["high"]))
                       for k, v in (blob.get("intervals") or {}).items()},
            pairwise={o: {k: float(p) for k, p in ps.items()} for o, ps in (blob.get("pairwise") or {}).items()},
            model_meta=dict(blob.get("model_meta") or {}),
            domains={d: Interval(float(v["mean"]), float(v["low"]), float(v["high"]))
                     for d, v in (blob.get("domains") or {}).items()},
        )

    def p_holm(self, other: str, metric: str = MAIN_SCORE) -> float | None:
        return self.pairwise.get(other, {}).get(metric)


def ordered(rows: Iterable[Row]) -> list[Row]:
    """Rows in leaderboard order (``evaluation.standing``)."""
    return in_standing_order(rows, lambda r: r.model, lambda r: r.metrics)


def rows_from(reports: Sequence[ModelReport], analysis: AnalysisFiles, dataset_repo: str) -> list[Row]:
    """Rows in leaderboard order, with the statistics of the folder's analysis files."""
    names = [r.model.name for r in reports]
    rows = []
    for report in reports:
        pairwise: dict[str, dict[str, float]] = {}
        for other in names:
            if other == report.model.name:
                continue
            for metric in report.means():
                p = analysis.p_holm(report.model.name, other, metric)
                if p is not None:
                    pairwise.setdefault(other, {})[metric] = p
        rows.append(Row.of(report, intervals=analysis.intervals.get(report.model.name, {}), pairwise=pairwise,
                           dataset_repo=dataset_repo))
    return ordered(rows)


def differs_from_above(rows: Sequence[Row], metric: str = MAIN_SCORE) -> list[bool | None]:
    """Per row: whether it differs significantly from the row above on ``metric`` (None: not tested / first)."""
    marks: list[bool | None] = [None]
    for above, row in zip(rows, rows[1:]):
        marks.append(differs(row.p_holm(above.model, metric)))
    return marks[: len(rows)]


def cell(row: Row, metric: str, digits: int = 3) -> str:
    """``0.093 [0.076, 0.111]`` with an interval, ``0.093`` without."""
    interval = row.intervals.get(metric)
    return interval.format(digits) if interval else f"{row.metrics.get(metric, float('nan')):.{digits}f}"


def markdown_table(rows: Sequence[Row], metrics: Iterable[str] = tuple(Metric.EXEC.key(k) for k in K_VALUES)) -> str:
    """The card's leaderboard: exec@k with 95 % intervals, and the significance mark against the row above."""
    metrics = list(metrics)
    labels = [key.replace("exec_at_", "exec@") for key in metrics]
    lines = ["| # | model | " + " | ".join(labels) + " | differs from the row above |",
             "|---:|---|" + "---:|" * len(metrics) + "---|"]
    for position, (row, mark) in enumerate(zip(rows, differs_from_above(rows)), 1):
        flag = {None: "-" if position == 1 else "not tested", True: "yes", False: "no"}[mark]
        lines.append(f"| {position} | {row.model} | " + " | ".join(cell(row, m) for m in metrics) + f" | {flag} |")
    return "\n".join(lines) + "\n"


def dumps_row(row: Row) -> str:
    return json.dumps(row.to_json(), indent=1, sort_keys=True) + "\n"


def read_row(path: Path) -> Row:
    try:
        return Row.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise RowError(f"{path}: row file missing") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RowError(f"{path}: not a leaderboard row ({type(exc).__name__}: {exc}); re-create it with "
                       "`execretrieval submit`") from None
