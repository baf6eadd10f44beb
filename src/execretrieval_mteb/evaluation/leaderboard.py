"""The leaderboard: one row per model, exec@k, execution_precision@k and tie-neutral nDCG@k."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import write_text_atomic
from .metric_names import K_VALUES, Metric


@dataclass(frozen=True)
class LeaderboardRow:
    model: str
    revision: str | None
    n_queries: int
    scores: Mapping[str, float]


def _columns(k_values: Sequence[int]) -> list[tuple[str, str]]:
    return [(m.key(k), f"{m.label}@{k}") for m in Metric for k in k_values]


def sort_rows(rows: Iterable[LeaderboardRow]) -> list[LeaderboardRow]:
    """Best exec@1 first, then exec@3, ...; the model name only breaks exact ties."""
    keys = [Metric.EXEC.key(k) for k in K_VALUES]
    return sorted(rows, key=lambda r: (*(-r.scores.get(key, 0.0) for key in keys), r.model))


def format_table(rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> str:
    """A Markdown table (readable as plain text) with three decimals."""
    columns = _columns(k_values)
    ordered = sort_rows(rows)
    width = max([len("model")] + [len(r.model) for r in ordered])
    header = "| " + "model".ljust(width) + " | " + " | ".join(label for _, label in columns) + " |"
    rule = "|" + "-" * (width + 2) + "|" + "|".join("-" * (len(label) + 2) for _, label in columns) + "|"
    lines = [header, rule]
    for row in ordered:
        cells = [f"{row.scores.get(key, float('nan')):.3f}".rjust(len(label)) for key, label in columns]
        lines.append("| " + row.model.ljust(width) + " | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def leaderboard_files(rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> dict[str, str]:
    """``leaderboard.md`` (the table) and ``leaderboard.json`` ({model: {revision, n_queries, metrics}})."""
    ordered = sort_rows(rows)
    blob = {r.model: {"revision": r.revision, "n_queries": r.n_queries, "metrics": dict(r.scores)} for r in ordered}
    return {
        "leaderboard.md": format_table(ordered, k_values),
        "leaderboard.json": json.dumps(blob, indent=1, sort_keys=True) + "\n",
    }


def write_leaderboard(folder: Path, rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> None:
    """Write ``leaderboard_files`` into ``folder``."""
    for name, text in leaderboard_files(rows, k_values).items():
        write_text_atomic(folder / name, text)
