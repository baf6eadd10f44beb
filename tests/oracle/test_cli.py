"""`execretrieval oracle ...` from the command line: run, bad input, selfcheck, cache export/import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "execretrieval_mteb.cli.main", "oracle"]
CODE = "def f(x):\n    return x + 1\n"


def oracle_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def test_run_writes_one_line_per_suite_in_input_order(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(row) for row in [
        {"id": "ok", "code": CODE, "tests": ["assert f(1) == 2"]},
        {"id": 7, "code": CODE, "tests": ["assert f(1) == 3", "assert f(None)"]},
        {"id": "empty", "code": CODE, "tests": []},
    ]) + "\n\n")
    done = oracle_cli("run", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-oracle-cache", "--workers", "2", "--strict")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["ok", 7, "empty"]
    assert [r["outcomes"] for r in rows] == [["pass"], ["FAIL", "ERROR:TypeError"], []]
    assert [r["passed"] for r in rows] == [True, False, False]  # no tests verify nothing: not a pass (passes_all)
    assert "seccomp" in rows[0]["protections"] and "unprivileged_uid" in rows[0]["protections"]
    assert "3 suites: 0 from cache, 3 executed, 0 duplicates, 0 infrastructure errors" in done.stderr


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "in.jsonl:2: not valid JSON"),
    ('["a"]', "in.jsonl:2: expected a JSON object"),
    ('{"id": 1, "code": "x = 1"}', "in.jsonl:2: missing field 'tests'"),
    ('{"id": 1, "code": 5, "tests": []}', "in.jsonl:2: field 'code' must be a string"),
    ('{"id": 1, "code": "x = 1", "tests": "assert x"}', "in.jsonl:2: field 'tests' must be a list of strings"),
])
def test_a_malformed_line_is_named_and_nothing_is_written(tmp_path: Path, line: str, message: str) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 0, "code": CODE, "tests": ["assert f(1) == 2"]}) + "\n" + line + "\n")
    done = oracle_cli("run", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-oracle-cache")
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.jsonl").exists()


def test_missing_input_and_bad_workers_are_usage_errors(tmp_path: Path) -> None:
    done = oracle_cli("run", str(tmp_path / "absent.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--no-oracle-cache")
    assert done.returncode == 2 and "absent.jsonl: no such file" in done.stderr
    (tmp_path / "in.jsonl").write_text("")
    done = oracle_cli("run", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--workers", "0")
    assert done.returncode == 2 and "argument --workers: expected a positive integer, got 0" in done.stderr


def test_selfcheck_lists_protections_and_canaries() -> None:
    done = oracle_cli("selfcheck", "--strict", "--workers", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "+ seccomp" in done.stdout and "+ landlock_filesystem" in done.stdout
    for name in ("loopback_connect", "fork", "c_level_infinite_loop", "threads_work"):
        line = next(ln for ln in done.stdout.splitlines() if ln.strip().startswith(name))
        assert line.rstrip().endswith("ok"), line
    assert "selfcheck: all canaries behaved" in done.stdout


def test_cache_export_then_import_through_the_cli(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "code": CODE, "tests": ["assert f(1) == 2", "assert f(2) == 2"]}) + "\n")
    cache_a, cache_b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    assert oracle_cli("run", str(source), "-o", str(tmp_path / "1.jsonl"), "--oracle-cache", str(cache_a)).returncode == 0
    assert oracle_cli("cache-export", "-o", str(tmp_path / "exported.jsonl"), "--oracle-cache", str(cache_a)).returncode == 0
    exported = [json.loads(line) for line in (tmp_path / "exported.jsonl").read_text().splitlines()]
    assert [row["test_results"] for row in exported] == [["pass", "FAIL"]]
    done = oracle_cli("cache-import", str(tmp_path / "exported.jsonl"), "--oracle-cache", str(cache_b))
    assert done.returncode == 0 and "imported 1 rows" in done.stderr
    again = oracle_cli("run", str(source), "-o", str(tmp_path / "2.jsonl"), "--oracle-cache", str(cache_b))
    assert "1 from cache, 0 executed" in again.stderr
    assert (tmp_path / "1.jsonl").read_text() == (tmp_path / "2.jsonl").read_text()
    (tmp_path / "broken.jsonl").write_text('{"code_sha256": "x"}\n')
    done = oracle_cli("cache-import", str(tmp_path / "broken.jsonl"), "--oracle-cache", str(cache_b))
    assert done.returncode == 2 and "broken.jsonl:1: missing field 'tests_sha256'" in done.stderr
