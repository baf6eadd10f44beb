"""The leaderboard: one row per model, exec@k, execution_precision@k and tie-neutral nDCG@k.

Rows are ordered by exec@1, then exec@3, ... (the model name only breaks exact ties). When the
statistics are available each row also carries its 95 % bootstrap intervals and whether its exec@1
differs from the row above's (Holm-adjusted paired test, see ``analysis.leaderboard_rows``): two
adjacent rows that do not differ are an ordering of point estimates, not a ranking.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset.io import write_text_atomic
from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric

SIGNIFICANT, NOT_SIGNIFICANT = "*", "="


@dataclass(frozen=True)
class LeaderboardRow:
    model: str
    revision: str | None
    n_queries: int
    scores: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """metric key -> (low, high) of its 95 % bootstrap interval."""
    p_vs_above: float | None = None
    """Holm-adjusted p-value of exec@1 against the row above (None for the first row or without statistics)."""
    differs_from_above: bool | None = None


def _columns(k_values: Sequence[int]) -> list[tuple[str, str]]:
    return [(m.key(k), f"{m.label}@{k}") for m in Metric for k in k_values]


def sort_rows(rows: Iterable[LeaderboardRow]) -> list[LeaderboardRow]:
    """Best exec@1 first, then exec@3, ...; the model name only breaks exact ties."""
    keys = [Metric.EXEC.key(k) for k in K_VALUES]
    return sorted(rows, key=lambda r: (*(-r.scores.get(key, 0.0) for key in keys), r.model))


def _interval_cell(row: LeaderboardRow) -> str:
    low_high = row.intervals.get(MAIN_SCORE)
    return f"[{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high else ""


def _mark(row: LeaderboardRow) -> str:
    return "" if row.differs_from_above is None else (SIGNIFICANT if row.differs_from_above else NOT_SIGNIFICANT)


def format_table(rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> str:
    """A Markdown table (readable as plain text) with three decimals; exec@1's interval and the
    significance mark against the row above when the rows carry statistics."""
    ordered = sort_rows(rows)
    with_stats = any(r.intervals for r in ordered)
    columns = _columns(k_values)
    header = ["model", columns[0][1]] + (["95 % CI", "vs above"] if with_stats else []) + [c[1] for c in columns[1:]]
    body = []
    for row in ordered:
        values = [f"{row.scores.get(key, float('nan')):.3f}" for key, _ in columns]
        body.append([row.model, values[0]] + ([_interval_cell(row), _mark(row)] if with_stats else []) + values[1:])
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    lines = [render(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [render(b) for b in body]
    if with_stats:
        lines += ["", f"{SIGNIFICANT}: exec@1 differs from the row above (paired test, Holm-adjusted p < 0.05); "
                      f"{NOT_SIGNIFICANT}: it does not, so the order of the two rows is not established."]
    return "\n".join(lines) + "\n"


def leaderboard_files(rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> dict[str, str]:
    """``leaderboard.md`` (the table) and ``leaderboard.json`` ({model: {revision, n_queries, metrics, ci95, vs_above}})."""
    ordered = sort_rows(rows)
    blob = {
        r.model: {
            "revision": r.revision,
            "n_queries": r.n_queries,
            "metrics": dict(r.scores),
            "ci95": {key: list(bounds) for key, bounds in r.intervals.items()},
            "vs_above": None if r.differs_from_above is None else {
                "metric": MAIN_SCORE, "p_holm": r.p_vs_above, "differs": r.differs_from_above,
            },
        }
        for r in ordered
    }
    return {
        "leaderboard.md": format_table(ordered, k_values),
        "leaderboard.json": json.dumps(blob, indent=1, sort_keys=True) + "\n",
    }


def write_leaderboard(folder: Path, rows: Iterable[LeaderboardRow], k_values: Sequence[int] = K_VALUES) -> None:
    """Write ``leaderboard_files`` into ``folder``."""
    for name, text in leaderboard_files(rows, k_values).items():
        write_text_atomic(folder / name, text)
