"""The leaderboard table and files."""

from __future__ import annotations

import json
from pathlib import Path

from execretrieval_mteb.results.leaderboard import LeaderboardRow, format_table, write_leaderboard
from execretrieval_mteb.evaluation.metric_names import K_VALUES, Metric


def _row(name: str, exec1: float) -> LeaderboardRow:
    scores = {m.key(k): (exec1 if k == 1 else 0.5) for m in Metric for k in K_VALUES}
    return LeaderboardRow(name, "rev", 7, scores)


def test_table_sorted_by_exec_at_1_with_every_metric_column(tmp_path: Path) -> None:
    rows = [_row("org/low", 0.1), _row("org/high", 0.9)]
    table = format_table(rows)
    lines = table.splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == ["model"] + [
        f"{m.label}@{k}" for m in Metric for k in K_VALUES]
    assert lines[2].startswith("| org/high") and lines[3].startswith("| org/low")
    assert "0.900" in lines[2]
    write_leaderboard(tmp_path, rows)
    assert (tmp_path / "leaderboard.md").read_text() == table
    blob = json.loads((tmp_path / "leaderboard.json").read_text())
    assert list(blob) == ["org/high", "org/low"] and blob["org/low"]["metrics"][Metric.EXEC.key(1)] == 0.1
