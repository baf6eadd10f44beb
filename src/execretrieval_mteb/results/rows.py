"""One leaderboard row per model: its scores, intervals, invocation settings and dataset identity.

A row is what the dataset card's leaderboard and the static site show, and what ``execretrieval
submit`` writes as ``leaderboard/rows/<org__model>.json``::

    {"schema_version": 1, "model", "revision", "prompts", "similarity",
     "dataset": {"repo_id", "revision", "fingerprint"}, "n_queries",
     "metrics": {metric key: mean},
     "intervals": {metric key: {"mean", "low", "high"}}          (empty without the analysis files)
     "pairwise": {other model: {metric key: Holm-adjusted p}}}   (the tests run with the others of its folder)

Rows are built from a results folder's evaluation files (``report``) and, when they
describe exactly those evaluations, its analysis files (``analysis_files``). No timestamps or paths,
so the same results give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ExecRetrievalError
from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from ..evaluation.model_report import ModelReport
from .analysis_files import ALPHA, AnalysisFiles, Interval
from .leaderboard import LeaderboardRow, sort_rows

SCHEMA_VERSION = 1


class RowError(ExecRetrievalError):
    """A leaderboard row file is unreadable; the message names it and the fix."""


@dataclass(frozen=True)
class Row:
    model: str
    revision: str | None
    prompts: Mapping[str, str]
    similarity: str | None
    dataset_repo: str
    dataset_revision: str
    dataset_fingerprint: str
    n_queries: int
    metrics: Mapping[str, float]
    intervals: Mapping[str, Interval] = field(default_factory=dict)
    pairwise: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

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
        }

    @staticmethod
    def from_json(blob: Mapping[str, Any]) -> Row:
        if blob.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"schema_version {blob.get('schema_version')!r}, expected {SCHEMA_VERSION}")
        return Row(
            model=str(blob["model"]), revision=blob.get("revision"), prompts=blob.get("prompts") or {},
            similarity=blob.get("similarity"), dataset_repo=str(blob["dataset"]["repo_id"]),
            dataset_revision=str(blob["dataset"]["revision"]), dataset_fingerprint=str(blob["dataset"]["fingerprint"]),
            n_queries=int(blob["n_queries"]), metrics={k: float(v) for k, v in blob["metrics"].items()},
            intervals={k: Interval(float(v["mean"]), float(v["low"]), float(v["high"]))
                       for k, v in (blob.get("intervals") or {}).items()},
            pairwise={o: {k: float(p) for k, p in ps.items()} for o, ps in (blob.get("pairwise") or {}).items()},
        )

    def p_holm(self, other: str, metric: str = MAIN_SCORE) -> float | None:
        return self.pairwise.get(other, {}).get(metric)


def rows_from(reports: Sequence[ModelReport], analysis: AnalysisFiles, dataset_repo: str) -> list[Row]:
    """Rows in leaderboard order (best exec@1 first)."""
    by_name = {r.model.name: r for r in reports}
    order = sort_rows(LeaderboardRow(r.model.name, r.model.revision, len(r.query_ids), r.means()) for r in reports)
    rows = []
    for item in order:
        report = by_name[item.model]
        pairwise: dict[str, dict[str, float]] = {}
        for other in by_name:
            if other == item.model:
                continue
            for metric in item.scores:
                p = analysis.p_holm(item.model, other, metric)
                if p is not None:
                    pairwise.setdefault(other, {})[metric] = p
        rows.append(Row(
            model=report.model.name, revision=report.model.revision, prompts=dict(report.model.prompts),
            similarity=report.model.similarity, dataset_repo=dataset_repo, dataset_revision=report.dataset_revision,
            dataset_fingerprint=report.dataset_fingerprint, n_queries=len(report.query_ids), metrics=item.scores,
            intervals=analysis.intervals.get(report.model.name, {}), pairwise=pairwise,
        ))
    return rows


def differs_from_above(rows: Sequence[Row], metric: str = MAIN_SCORE) -> list[bool | None]:
    """Per row: whether it differs significantly from the row above on ``metric`` (None: not tested / first)."""
    marks: list[bool | None] = [None]
    for above, row in zip(rows, rows[1:]):
        p = row.p_holm(above.model, metric)
        marks.append(None if p is None else p < ALPHA)
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
