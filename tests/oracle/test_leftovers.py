"""Nothing a suite leaves behind reaches a later suite: the third red-team round, attack by attack.

Each test sends an attacking suite and then benign ones to the same worker, in one batch, through
an oracle with a cache, and checks the benign suites' verdicts and the cached rows: a verdict
changed by an earlier suite would be wrong, and cached.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.cache import ExecutionCache
from execretrieval_mteb.oracle.outcomes import Suite
from execretrieval_mteb.oracle.protections import Protection

CODE = "def f(x):\n    return x + 1\n"
WRITERS = [  # benign suites that need the scratch space, a file and a temporary file, with their verdicts
    (Suite(CODE + f"# writer {i}\n", (
        "assert open('out.txt', 'w').write('x' * 4096) == 4096",
        "import tempfile\nwith tempfile.TemporaryFile() as fh:\n    assert fh.write(b'y' * 65536) == 65536",
        "assert f(1) == 2",
    )), ["pass", "pass", "pass"])
    for i in range(4)
]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attacks target the uid-per-worker layout (needs root)")

# Files kept alive after the child's exit by an AF_UNIX garbage cycle: their descriptors and both
# ends of a socketpair sent into the pair's own queue (SCM_RIGHTS).
_CYCLE = ("import array, os, socket\na, b = socket.socketpair()\n"
          "a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', held + [a.fileno(), b.fileno()]))])\n")
_FILL = ("def fill(fd):\n    try:\n        for _ in range(16):\n            os.write(fd, b'x' * (1 << 20))\n"
         "    except OSError:\n        pass\n")
HIDDEN_FILES = {
    "tmpfile": "import os\n" + _FILL + "held = []\nfor _ in range(5):\n"
               "    fd = os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o600)\n    fill(fd)\n    held.append(fd)\n" + _CYCLE,
    "unlinked_file": "import os\n" + _FILL + "held = []\nfor i in range(5):\n"
                     "    fd = os.open(f'f{i}', os.O_CREAT | os.O_WRONLY, 0o600)\n    fill(fd)\n    os.unlink(f'f{i}')\n"
                     "    held.append(fd)\n" + _CYCLE,
    "memfd": "import os\nheld = []\nfor i in range(4):\n    fd = os.memfd_create('m')\n    os.ftruncate(fd, 16 << 20)\n"
             "    os.pwrite(fd, b'x' * (16 << 20), 0)\n    held.append(fd)\n" + _CYCLE,
}


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[ExecutionCache]:
    store = ExecutionCache(tmp_path / "cache.sqlite")
    yield store
    store.close()


def attack_then_writers(oracle: Oracle, cache: ExecutionCache, attack: str) -> list[list[str]]:
    """Send [attack, writers..., attack, writers...] to one worker in one batch; check the writers' verdicts
    and their cached rows; return the attacks' verdicts."""
    attack_suite = Suite(CODE, (attack, "assert f(1) == 2"))
    suites = [attack_suite] + [s for s, _ in WRITERS[:2]] + [Suite(CODE + "# again\n", attack_suite.tests)]
    suites += [s for s, _ in WRITERS[2:]]
    results = oracle._pool.servers[0].run_many(suites)
    writers = [r for i, r in enumerate(results) if i not in (0, 3)]
    assert [r.outcome_strings() for r in writers] == [expected for _, expected in WRITERS]
    # the same through Oracle.run, whose results are cached: no wrong verdict is stored
    oracle.cache = cache
    try:
        again = oracle.run(suites)
    finally:
        oracle.cache = None
    cache.flush()
    rows = cache.get_many([(s.code_sha256, s.tests_sha256) for s, _ in WRITERS], oracle.salt)
    assert [rows[(s.code_sha256, s.tests_sha256)].outcome_strings() for s, _ in WRITERS] == [e for _, e in WRITERS]
    assert [r.outcome_strings() for i, r in enumerate(again) if i not in (0, 3)] == [e for _, e in WRITERS]
    return [results[0].outcome_strings(), results[3].outcome_strings()]


@pytest.mark.parametrize("how", sorted(HIDDEN_FILES))
def test_files_hidden_in_a_descriptor_cycle_are_refused_and_no_later_suite_loses_its_space(
        how: str, cache: ExecutionCache) -> None:
    with Oracle(workers=1, strict=True) as oracle:
        verdicts = attack_then_writers(oracle, cache, HIDDEN_FILES[how])
    assert verdicts == [["ERROR:PermissionError", "pass"]] * 2  # O_TMPFILE, memfd_create or sendmsg refused


@pytest.mark.parametrize("how", sorted(HIDDEN_FILES))
def test_with_seccomp_off_the_world_check_still_gives_the_next_suite_a_fresh_world(
        how: str, cache: ExecutionCache) -> None:
    """The check after each suite does not rely on the rules that stop the attack: with seccomp off
    the cycle works, and the server sees the space or memory it holds and renews the scratch or the
    worker before the next suite."""
    with pytest.warns(RuntimeWarning, match="self-check failed"), Oracle(workers=1, disabled={Protection.SECCOMP}) as oracle:
        verdicts = attack_then_writers(oracle, cache, HIDDEN_FILES[how])
        assert oracle._pool.servers[0].replaced + oracle._pool.servers[0].renewed >= 1
    assert verdicts == [["pass", "pass"]] * 2  # the attack itself worked


def test_a_child_reads_no_verdict_of_the_suite_before_it() -> None:
    secret = f"Secret{uuid.uuid4().hex}"
    earlier = Suite(CODE + f"class {secret}(Exception):\n    pass\n", (f"raise {secret}()",) * 3)
    reader = Suite(CODE, (
        "import sys\nframe = sys._getframe()\nwhile frame.f_code.co_name != '_run_tests':\n    frame = frame.f_back\n"
        "board = frame.f_locals['board']\nseen = bytes(board.mem) + bytes(board.payload)\n"
        f"assert {secret[:6]!r} + {secret[6:]!r} not in seen.decode('latin-1')",))
    with Oracle(workers=1) as oracle:
        results = oracle._pool.servers[0].run_many([earlier, reader])
    assert results[0].outcome_strings() == [f"ERROR:{secret}"] * 3
    assert results[1].outcome_strings() == ["pass"]


def test_a_child_cannot_write_what_a_later_child_would_read() -> None:
    """The suite's text is mapped read-only in the child: no message can be left in it for the next suite."""
    writer = Suite(CODE, (
        "import sys\nframe = sys._getframe()\nwhile frame.f_code.co_name != '_run_tests':\n    frame = frame.f_back\n"
        "board = frame.f_locals['board']\nboard.payload[len(board.payload) - 8:] = b'LEFTOVER'",))
    with Oracle(workers=1) as oracle:
        result = oracle._pool.servers[0].run(writer)
    assert result.outcome_strings() == ["ERROR:SIGSEGV"]


def test_blocked_timer_signals_buy_no_verdict_past_the_cpu_budget() -> None:
    spin = ("import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGPROF, signal.SIGXCPU})\n"
            "end = time.process_time() + 1.2\nwhile time.process_time() < end:\n    pass")
    with Oracle(workers=1) as oracle:
        result = oracle.run_one(Suite(CODE, (spin, "assert f(1) == 2")))
    assert result.outcome_strings() == ["TIMEOUT", "pass"]


def test_the_sandbox_has_a_neutral_host_name_and_locks_no_memory() -> None:
    with Oracle(workers=1) as oracle:
        result = oracle.run_one(Suite(CODE, (
            "import os, socket\nassert os.uname().nodename == 'sandbox' == socket.gethostname()",
            "import resource\nassert resource.getrlimit(resource.RLIMIT_MEMLOCK) == (0, 0)",
            "import mmap, ctypes\nbuf = mmap.mmap(-1, 1 << 20)\n"
            "assert ctypes.CDLL(None).mlock(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(buf))), 1 << 20) != 0",
        )))
    assert result.outcome_strings() == ["pass", "pass", "pass"]


def test_no_cgroup_or_scratch_root_is_left_when_the_oracle_closes_or_its_host_dies() -> None:
    import json
    import subprocess
    import sys
    import time

    with Oracle(workers=2) as oracle:
        directories = [d for s in oracle._pool.servers if s._cgroup for d in s._cgroup.directories.values()]
        assert len(directories) == 4 and all(d.is_dir() for d in directories)
    assert not any(d.exists() for d in directories)
    crash = ("import json, os\nfrom execretrieval_mteb.oracle.api import Oracle\no = Oracle(workers=1)\no.start()\n"
             "server = o._pool.servers[0]\n"
             "print(json.dumps([str(d) for d in server._cgroup.directories.values()] + [server._scratch_root]), flush=True)\n"
             "os._exit(0)")
    done = subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True, timeout=120, check=True)
    left = [Path(d) for d in json.loads(done.stdout)]
    deadline = time.monotonic() + 10
    while any(d.exists() for d in left) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(left) == 3 and not any(d.exists() for d in left)  # the server saw its host go and removed them
