"""The leaderboard table and files, and the one order every table of models uses."""

from __future__ import annotations

import json
from pathlib import Path

from execretrieval_mteb.analysis.intervals import Interval
from execretrieval_mteb.evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from execretrieval_mteb.evaluation.standing import ALPHA
from execretrieval_mteb.leaderboard.site import render
from execretrieval_mteb.results.leaderboard import format_table, leaderboard_files, write_leaderboard
from execretrieval_mteb.results.rows import Row, differs_from_above, ordered


def _row(name: str, exec1: float, exec3: float = 0.5, pairwise: dict | None = None) -> Row:
    scores = {m.key(k): (exec1 if k == 1 else exec3 if k == 3 else 0.5) for m in Metric for k in K_VALUES}
    intervals = {MAIN_SCORE: Interval(exec1, exec1 - 0.1, exec1 + 0.1)} if pairwise is not None else {}
    return Row(name, "rev", {}, None, None, "local-x", "f" * 64, 7, scores, intervals, pairwise or {})


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


def test_one_order_everywhere_exec_at_1_then_exec_at_3_then_the_name() -> None:
    """Ties on exec@1 are broken by exec@3 (not by the name) on the leaderboard and the static site alike."""
    rows = [_row("a/first-by-name", 0.5, exec3=0.6), _row("z/better-at-3", 0.5, exec3=0.7), _row("m/tied", 0.5, exec3=0.6)]
    expected = ["z/better-at-3", "a/first-by-name", "m/tied"]
    assert [r.model for r in ordered(rows)] == expected
    table = format_table(rows).splitlines()
    assert [line.split("|")[1].strip() for line in table[2:]] == expected
    page = render(rows, [], {"repo_id": "r", "revision": "v", "fingerprint": "f"})
    assert [page.index(f'data-model="{m}"') for m in expected] == sorted(page.index(f'data-model="{m}"') for m in expected)


def test_the_mark_against_the_row_above_uses_the_one_threshold() -> None:
    just_below, just_above = ALPHA * 0.99, ALPHA * 1.01
    rows = ordered([_row("a", 0.9, pairwise={"b": {MAIN_SCORE: just_below}}),
                    _row("b", 0.5, pairwise={"a": {MAIN_SCORE: just_below}, "c": {MAIN_SCORE: just_above}}),
                    _row("c", 0.4, pairwise={"b": {MAIN_SCORE: just_above}})])
    assert differs_from_above(rows) == [None, True, False]
    table = format_table(rows).splitlines()
    assert [line.split("|")[4].strip() for line in table[2:5]] == ["", "*", "="]
    blob = json.loads(leaderboard_files(rows)["leaderboard.json"])
    assert blob["b"]["vs_above"] == {"metric": MAIN_SCORE, "p_holm": just_below, "differs": True}
    assert blob["a"]["vs_above"] is None
