"""The leaderboard: one row per model, exec@k, execution_precision@k and tie-neutral nDCG@k.

Rows (``rows.Row``) are in leaderboard order (``evaluation.standing``: exec@1, then exec@3, ...;
the model name only breaks exact ties). When the rows carry statistics, the table also shows
exec@1's 95 % bootstrap interval and whether each row differs from the row above (Holm-adjusted
paired test on exec@1 below ``standing.ALPHA``): two adjacent rows that do not differ are an
ordering of point estimates, not a ranking.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..dataset.io import write_text_atomic
from ..evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from ..evaluation.standing import ALPHA
from .rows import Row, differs_from_above, ordered

SIGNIFICANT, NOT_SIGNIFICANT = "*", "="


def _columns(k_values: Sequence[int]) -> list[tuple[str, str]]:
    return [(m.key(k), f"{m.label}@{k}") for m in Metric for k in k_values]


def _interval_cell(row: Row) -> str:
    interval = row.intervals.get(MAIN_SCORE)
    return f"[{interval.low:.3f}, {interval.high:.3f}]" if interval else ""


def _mark(differs: bool | None) -> str:
    return "" if differs is None else (SIGNIFICANT if differs else NOT_SIGNIFICANT)


def format_table(rows: Iterable[Row], k_values: Sequence[int] = K_VALUES) -> str:
    """A Markdown table (readable as plain text) with three decimals; exec@1's interval and the
    significance mark against the row above when the rows carry statistics."""
    rows = ordered(rows)
    with_stats = any(r.intervals for r in rows)
    columns = _columns(k_values)
    header = ["model", columns[0][1]] + (["95 % CI", "vs above"] if with_stats else []) + [c[1] for c in columns[1:]]
    body = []
    for row, differs in zip(rows, differs_from_above(rows)):
        values = [f"{row.metrics.get(key, float('nan')):.3f}" for key, _ in columns]
        body.append([row.model, values[0]] + ([_interval_cell(row), _mark(differs)] if with_stats else []) + values[1:])
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    lines = [render(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [render(b) for b in body]
    if with_stats:
        lines += ["", f"{SIGNIFICANT}: exec@1 differs from the row above (paired test, Holm-adjusted p < {ALPHA}); "
                      f"{NOT_SIGNIFICANT}: it does not, so the order of the two rows is not established."]
    return "\n".join(lines) + "\n"


def leaderboard_files(rows: Iterable[Row], k_values: Sequence[int] = K_VALUES) -> dict[str, str]:
    """``leaderboard.md`` (the table) and ``leaderboard.json`` ({model: {revision, n_queries, metrics, ci95, vs_above}})."""
    rows = ordered(rows)
    blob = {}
    for position, (row, differs) in enumerate(zip(rows, differs_from_above(rows))):
        blob[row.model] = {
            "revision": row.revision,
            "n_queries": row.n_queries,
            "metrics": dict(row.metrics),
            "ci95": {key: [i.low, i.high] for key, i in row.intervals.items()},
            "vs_above": None if differs is None else {
                "metric": MAIN_SCORE, "p_holm": row.p_holm(rows[position - 1].model), "differs": differs,
            },
        }
    return {
        "leaderboard.md": format_table(rows, k_values),
        "leaderboard.json": json.dumps(blob, indent=1, sort_keys=True) + "\n",
    }


def write_leaderboard(folder: Path, rows: Iterable[Row], k_values: Sequence[int] = K_VALUES) -> None:
    """Write ``leaderboard_files`` into ``folder``."""
    for name, text in leaderboard_files(rows, k_values).items():
        write_text_atomic(folder / name, text)
