"""The verdict cache: keyed with a salt, never stores harness failures, survives kill -9 and concurrent writers."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.cache import CacheError, ExecutionCache
from execretrieval_mteb.oracle.limits import Limits
from execretrieval_mteb.oracle.outcomes import Suite
from execretrieval_mteb.oracle.protections import Protection

CLI = [sys.executable, "-m", "execretrieval_mteb.cli.main", "oracle"]


def mixed_suites(n: int, salt: str = "") -> list[Suite]:
    """Suites whose verdicts differ: pass, wrong output, crash."""
    return [
        Suite(f"# {salt}{i}\ndef f(x):\n    return x + {i % 3}\n",
              ("assert f(1) == 2", "assert f(0) == 1", "assert 10 // (f(0) - 1) >= 0"))
        for i in range(n)
    ]


def write_input(path: Path, suites: list[Suite], sleep_s: float = 0.0) -> None:
    with path.open("w") as fh:
        for i, s in enumerate(suites):
            tests = [f"import time\ntime.sleep({sleep_s})", *s.tests] if sleep_s else list(s.tests)
            fh.write(json.dumps({"id": f"s{i}", "code": s.code, "tests": tests}) + "\n")


def rows(cache_path: Path) -> int:
    try:
        with sqlite3.connect(cache_path, timeout=30) as db:
            return int(db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_cache_hits_skip_execution_and_give_identical_results(tmp_path: Path) -> None:
    suites = mixed_suites(12)
    with Oracle(workers=2, cache=tmp_path / "c.sqlite") as oracle:
        first = oracle.run(suites)
        second = oracle.run(suites)
        assert oracle.stats == {"cached": 12, "duplicates": 0, "executed": 12, "infra_errors": 0, "workers_replaced": 0,
                                "workers_renewed": 0}
    assert [r.outcome_strings() for r in first] == [r.outcome_strings() for r in second]
    assert [r.protections for r in second] == [r.protections for r in first]
    expected = {0: ["FAIL", "FAIL", "FAIL"], 1: ["pass", "pass", "ERROR:ZeroDivisionError"], 2: ["FAIL", "FAIL", "pass"]}
    assert [r.outcome_strings() for r in first] == [expected[i % 3] for i in range(12)]


def test_other_limits_or_weaker_protections_miss_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    suites = mixed_suites(4)
    with Oracle(workers=1, cache=cache) as oracle:
        oracle.run(suites)
    with Oracle(workers=1, cache=cache, limits=Limits(test_cpu_s=0.9)) as other_limits:
        other_limits.run(suites)
        assert other_limits.stats["executed"] == 4
    with pytest.warns(RuntimeWarning), Oracle(workers=1, cache=tmp_path / "weak.sqlite", disabled={Protection.SECCOMP}) as weak:
        weak.run(suites)
    with ExecutionCache(tmp_path / "weak.sqlite") as weak_cache, ExecutionCache(cache) as full_cache:
        full_cache.import_jsonl(_export(weak_cache, tmp_path / "weak.jsonl"), salt="unused")
    with Oracle(workers=1, cache=cache) as full:
        full.run(suites)
        assert full.stats == {"cached": 4, "duplicates": 0, "executed": 0, "infra_errors": 0, "workers_replaced": 0,
                              "workers_renewed": 0}  # its own rows, not the weaker ones


def _export(cache: ExecutionCache, path: Path) -> Path:
    cache.export_jsonl(path)
    return path


def test_infrastructure_errors_are_reported_and_never_cached(tmp_path: Path) -> None:
    # one process for the worker's uid is too few to fork a suite's: a real harness failure on every suite
    with pytest.warns(RuntimeWarning, match="self-check failed"), \
            Oracle(workers=1, limits=Limits(processes=1), cache=tmp_path / "c.sqlite") as broken:
        result = broken.run_one(Suite("def f():\n    return 1\n", ("assert f() == 1",)))
        assert result.infra_error is not None and "could not fork" in result.infra_error
        assert result.outcomes == () and not result.passed
        assert broken.stats["infra_errors"] >= 1
    assert rows(tmp_path / "c.sqlite") == 0


def test_export_import_round_trip_in_the_original_schema(tmp_path: Path) -> None:
    suites = mixed_suites(6)
    with Oracle(workers=2, cache=tmp_path / "a.sqlite") as oracle:
        expected = [r.outcome_strings() for r in oracle.run(suites)]
        salt = oracle.salt
    with ExecutionCache(tmp_path / "a.sqlite") as cache:
        assert cache.export_jsonl(tmp_path / "execution_cache.jsonl") == 6
    lines = [json.loads(line) for line in (tmp_path / "execution_cache.jsonl").read_text().splitlines()]
    by_key = {(s.code_sha256, s.tests_sha256): o for s, o in zip(suites, expected)}
    for line in lines:
        assert {"code_sha256", "tests_sha256", "test_results"} <= line.keys()
        assert line["test_results"] == by_key[(line["code_sha256"], line["tests_sha256"])]
        assert line["oracle_salt"] == salt
    with ExecutionCache(tmp_path / "b.sqlite") as cache:
        assert cache.import_jsonl(tmp_path / "execution_cache.jsonl", salt="unused") == 6
    with Oracle(workers=1, cache=tmp_path / "b.sqlite") as oracle:
        assert [r.outcome_strings() for r in oracle.run(suites)] == expected
        assert oracle.stats["executed"] == 0


def test_import_of_a_bad_file_names_the_line_and_writes_nothing(tmp_path: Path) -> None:
    good = {"code_sha256": "a" * 64, "tests_sha256": "b" * 64, "test_results": ["pass"]}
    bad_file = tmp_path / "bad.jsonl"
    bad_file.write_text(json.dumps(good) + "\n" + json.dumps({**good, "test_results": ["MAYBE"]}) + "\n")
    with ExecutionCache(tmp_path / "c.sqlite") as cache:
        with pytest.raises(CacheError, match=r"bad.jsonl:2: unknown test outcome 'MAYBE'"):
            cache.import_jsonl(bad_file, salt="s")
        assert len(cache) == 0
        bad_file.write_text(json.dumps({"code_sha256": "a" * 64, "test_results": []}) + "\n")
        with pytest.raises(CacheError, match=r"bad.jsonl:1: missing field 'tests_sha256'"):
            cache.import_jsonl(bad_file, salt="s")


def test_a_run_killed_with_sigkill_resumes_with_identical_results(tmp_path: Path) -> None:
    suites = mixed_suites(40, salt="kill")
    source = tmp_path / "in.jsonl"
    write_input(source, suites, sleep_s=0.08)
    cache = tmp_path / "c.sqlite"
    victim = subprocess.Popen([*CLI, "run", str(source), "-o", str(tmp_path / "killed.jsonl"), "--oracle-cache", str(cache),
                               "--workers", "1"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while rows(cache) < 5 and time.monotonic() < deadline and victim.poll() is None:
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    done_before = rows(cache)
    assert 5 <= done_before < 40, "the kill must land mid-run"
    assert not (tmp_path / "killed.jsonl").exists()

    resumed = subprocess.run([*CLI, "run", str(source), "-o", str(tmp_path / "resumed.jsonl"), "--oracle-cache", str(cache),
                              "--workers", "2"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done_before} from cache, {40 - done_before} executed" in resumed.stderr
    fresh = subprocess.run([*CLI, "run", str(source), "-o", str(tmp_path / "fresh.jsonl"), "--no-oracle-cache", "--workers", "2"],
                           capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    assert (tmp_path / "resumed.jsonl").read_text() == (tmp_path / "fresh.jsonl").read_text()
    assert rows(cache) == 40


def test_concurrent_writers_share_one_cache(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    suites = mixed_suites(30, salt="concurrent")
    inputs = []
    for name, part in (("a", suites[:20]), ("b", suites[10:])):
        inputs.append(tmp_path / f"{name}.jsonl")
        write_input(inputs[-1], part)
    procs = [subprocess.Popen([*CLI, "run", str(p), "-o", str(p.with_suffix(".out")), "--oracle-cache", str(cache), "--workers", "1"],
                              stderr=subprocess.PIPE, text=True) for p in inputs]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert rows(cache) == 30
    with Oracle(workers=1, cache=cache) as oracle:
        oracle.run(suites)
        assert oracle.stats["executed"] == 0
