"""How each worker is laid out: the confined launcher, and CPU pinning of a pool with one worker per CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.outcomes import Suite

SUITE = Suite("def f(x):\n    return x * 2\n", ("assert f(2) == 4",))


def _launchers(oracle: Oracle) -> list[int]:
    """Pid of each server's launcher (each server first runs a suite, which starts its launcher)."""
    pids = []
    for server in oracle._pool.servers:
        assert server.run(SUITE).outcome_strings() == ["pass"]
        assert server._proc is not None
        pid = server._proc.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        assert len(children) == 1, children
        pids.append(int(children[0]))
    return pids


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch needs root")
def test_the_launcher_is_confined_before_it_forks_any_child(oracle: Oracle) -> None:
    for server, pid in zip(oracle._pool.servers, _launchers(oracle)):
        status = _status(pid)
        assert status["Uid"].split() == [str(server.uid)] * 4 and status["Gid"].split() == [str(server.uid)] * 4
        assert status["NoNewPrivs"] == "1"
        assert status["Seccomp"] == "2"  # the launcher's program; each child adds its own
        assert status["NSpid"].split()[-1] == "1"  # process 1 of the worker's own PID namespace
        namespaces = {name: os.readlink(f"/proc/{pid}/ns/{name}") for name in ("pid", "ipc", "net", "mnt")}
        assert all(os.readlink(f"/proc/self/ns/{name}") != ns for name, ns in namespaces.items())


def test_a_pool_with_one_worker_per_cpu_is_pinned_and_a_smaller_one_is_not() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs at least two usable CPUs")
    with Oracle(workers=len(cpus)) as oracle:
        servers = [s._proc.pid for s in oracle._pool.servers if s._proc is not None]
        assert [os.sched_getaffinity(pid) for pid in servers] == [{cpu} for cpu in cpus]
        assert [os.sched_getaffinity(pid) for pid in _launchers(oracle)] == [{cpu} for cpu in cpus]
    with Oracle(workers=1) as oracle:
        assert oracle.run_one(SUITE).outcome_strings() == ["pass"]
        server = oracle._pool.servers[0]._proc
        assert server is not None and os.sched_getaffinity(server.pid) == set(cpus)


def test_a_suite_bigger_than_the_shared_board_gets_a_worker_with_a_bigger_one() -> None:
    big_code = "def f(x):\n    return x * 2\n" + "# " + "é" * 700_000 + "\n"  # 1.4 MB of UTF-8: over the 1 MiB board
    tests = tuple(f"assert f({i}) == {2 * i}" for i in range(300))  # over the 256 test slots
    with Oracle(workers=1) as oracle:
        result = oracle.run_one(Suite(big_code, tests + ("assert f(1) == 3",)))
        assert result.outcome_strings() == ["pass"] * 300 + ["FAIL"]
        assert oracle._pool.servers[0].replaced == 1  # once, to grow the board; then it stays
        assert oracle.run_one(SUITE).outcome_strings() == ["pass"]
        assert oracle._pool.servers[0].replaced == 1


_BIG_REPLIES = r"""
from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.outcomes import Suite
name = "E" * 240  # each verdict is ERROR:EEE...: 246 bytes of reply per 12-byte test
code = "# " + "x" * 12000 + f"\nclass {name}(Exception):\n    pass\ndef f():\n    raise {name}()\n"
suites = [Suite(code + f"# {i}\n", ("assert f()",) * 256) for i in range(64)]
with Oracle(workers=1) as oracle:
    results = oracle.run(suites)
print(sorted({o for r in results for o in r.outcome_strings()}), len(results))
"""


def test_a_batch_whose_replies_outgrow_the_pipe_is_answered() -> None:
    """The server answers while it still reads the host's batch; when the replies outgrow the pipe
    before the host has written the whole batch, a blocking host write never returned."""
    done = subprocess.run([sys.executable, "-c", _BIG_REPLIES], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["['ERROR:" + "E" * 240 + "']", "64"]
