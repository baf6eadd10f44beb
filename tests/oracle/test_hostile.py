"""Hostile snippets are contained: verdict correct, the next test of the suite still runs, host unchanged."""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execretrieval_mteb.oracle.api import Oracle, OracleUnavailableError
from execretrieval_mteb.oracle.limits import Limits
from execretrieval_mteb.oracle.outcomes import InfraErrorKind, Suite
from execretrieval_mteb.oracle.program import SANDBOX_UID_BASE
from execretrieval_mteb.oracle.protections import Protection
from execretrieval_mteb.oracle.selfcheck import Canary, run_quick

CODE = "def f(x):\n    return x + 1\n"
NEXT_TEST = "assert f(1) == 2"


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


@pytest.fixture(scope="module")
def host_dirs() -> Iterator[tuple[Path, Path]]:
    """A world-writable dir (only the sandbox can stop writes there) and a world-readable secret."""
    base = Path("/tmp") / f"xr-hostile-{uuid.uuid4().hex[:8]}"
    writable, secret_dir = base / "writable", base / "secret"
    for d in (base, writable, secret_dir):
        d.mkdir()
    writable.chmod(0o777)
    base.chmod(0o755)
    secret_dir.chmod(0o755)
    (secret_dir / "secret.txt").write_text("top secret")
    (secret_dir / "secret.txt").chmod(0o644)
    yield writable, secret_dir / "secret.txt"
    for p in sorted(base.rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    base.rmdir()


def hostile_cases(port: int, writable: Path, secret: Path) -> dict[str, tuple[str, set[str]]]:
    """name -> (hostile test, verdicts that count as contained)."""
    return {
        "loopback_listener": (f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)", {"ERROR:PermissionError"}),
        "write_outside_scratch": (f"open({str(writable / 'escaped.txt')!r}, 'w').write('x')",
                                  {"ERROR:OSError", "ERROR:PermissionError", "ERROR:FileNotFoundError"}),
        "read_outside_allow_list": (f"assert open({str(secret)!r}).read() == 'top secret'",
                                    {"ERROR:PermissionError", "ERROR:FileNotFoundError"}),
        "fork_bomb": ("import os\nwhile True:\n    os.fork()", {"ERROR:PermissionError"}),
        "subprocess": ("import subprocess\nsubprocess.run(['/bin/sh', '-c', 'true'])", {"ERROR:PermissionError"}),
        "allocate_10gb": ("block = bytearray(10 * 2**30)", {"ERROR:MemoryError"}),
        "kill_parent": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", {"ERROR:PermissionError"}),
        "kill_everything": ("import os, signal\nos.kill(-1, signal.SIGKILL)", {"ERROR:PermissionError"}),
        "python_infinite_loop": ("while True:\n    pass", {"TIMEOUT"}),
        "loop_swallowing_timeouts": ("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass", {"TIMEOUT"}),
        "c_level_infinite_loop": ("import itertools\nsum(itertools.repeat(1))", {"TIMEOUT"}),
        "sleeping": ("import time\ntime.sleep(30)", {"TIMEOUT"}),
        "os_exit": ("import os\nos._exit(0)", {"ERROR:ProcessExited"}),
        "segfault": ("import ctypes\nctypes.string_at(0)", {"ERROR:SIGSEGV"}),
        "abort": ("import os\nos.abort()", {"ERROR:SIGABRT"}),
        "unbounded_recursion": ("def down(n):\n    return down(n + 1)\ndown(0)", {"ERROR:RecursionError"}),
        "huge_file": ("open('huge.bin', 'wb').write(b'x' * (200 << 20))", {"ERROR:OSError"}),
        "rebind_harness_functions": ("import os, time\nos._exit = os.write = time.monotonic = None", {"pass"}),
        "fill_scratch_disk": ("for i in range(64):\n    open(f'part{i}.bin', 'wb').write(b'x' * (15 << 20))", {"ERROR:OSError"}),
    }


def test_hostile_snippets_are_contained(oracle: Oracle, listener: socket.socket, host_dirs: tuple[Path, Path]) -> None:
    writable, secret = host_dirs
    cases = hostile_cases(listener.getsockname()[1], writable, secret)
    suites = [Suite(CODE, (test, NEXT_TEST)) for test, _ in cases.values()]
    results = oracle.run(suites)
    verdicts = {name: r.outcome_strings() for name, r in zip(cases, results)}
    for (name, (_, contained)), result in zip(cases.items(), results):
        assert result.infra_error is None, (name, result.infra_error)
        assert result.outcome_strings()[0] in contained, (name, verdicts[name])
        assert result.outcome_strings()[1] == "pass", (name, "the next test must still run", verdicts[name])
    # the host is unchanged
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert list(writable.iterdir()) == []
    for server in oracle._pool.servers:
        assert server._scratch_root is not None and os.listdir(server._scratch_root) == []
    # and the oracle still works
    assert oracle.run_one(Suite(CODE, (NEXT_TEST,))).passed


def test_legitimate_code_still_passes(oracle: Oracle) -> None:
    tests = (
        "import threading\nout = []\nts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\nassert sorted(out) == list(range(8))",
        "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor(4) as ex:\n    assert list(ex.map(f, [1, 2])) == [2, 3]",
        "import decimal, fractions, statistics, zoneinfo, datetime, calendar, heapq, bisect, re, json, itertools\n"
        "assert decimal.Decimal('0.1') + decimal.Decimal('0.2') == decimal.Decimal('0.3')\n"
        "assert datetime.datetime(2024, 7, 1, tzinfo=zoneinfo.ZoneInfo('Europe/Paris')).utcoffset().seconds == 7200",
        "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nassert depth(900) == 900",
        "import sys\nsys.setrecursionlimit(20000)\ndef depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nassert depth(15000) == 15000",
        "import tempfile, os\nwith tempfile.NamedTemporaryFile('w', delete=False) as fh:\n    fh.write('ok')\nassert open(fh.name).read() == 'ok'",
        "import random\nrandom.seed(1)\nassert 0 <= random.random() < 1",
        "import os, time\nassert os.urandom(4) and time.time() > 0 and time.localtime().tm_year >= 2024",
        "print('noise to stdout' * 1000)\nassert f(1) == 2",
        "import os\nwith open(os.devnull, 'w') as sink:\n    sink.write('discarded')",
        "import asyncio\nasync def twice(x):\n    await asyncio.sleep(0)\n    return 2 * x\nassert asyncio.run(twice(3)) == 6",
    )
    result = oracle.run_one(Suite(CODE, tests))
    assert result.outcome_strings() == ["pass"] * len(tests)


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch needs root")
def test_code_under_test_runs_as_its_workers_own_uid_in_its_scratch_dir(oracle: Oracle) -> None:
    tests = ("import os\nassert os.getuid() == os.getgid() == UID and os.getgroups() == []",
             "import os\nassert os.listdir('.') == []\nopen('mine', 'w').close()\nassert os.listdir('.') == ['mine']",
             "import os\nassert os.environ['TMPDIR'] == os.getcwd()")
    uids = []
    for server in oracle._pool.servers:
        server.start()
        assert server.uid is not None
        uids.append(server.uid)
        assert server.run(Suite(f"UID = {server.uid}\n" + CODE, tests)).outcome_strings() == ["pass"] * 3
    assert len(set(uids)) == len(uids) and all(uid >= SANDBOX_UID_BASE for uid in uids)


def test_suites_do_not_see_each_others_scratch_files(oracle: Oracle) -> None:
    writer = Suite(CODE, ("open('left_behind', 'w').write('x')",))
    reader = Suite(CODE + "# reader\n", ("import os\nassert not os.path.exists('left_behind')",))
    assert [r.passed for r in oracle.run([writer, reader])] == [True, True]


def test_layers_hold_on_their_own_when_seccomp_is_off(listener: socket.socket, host_dirs: tuple[Path, Path]) -> None:
    """Network namespace + Landlock still stop network and writes without the seccomp layer."""
    writable, _ = host_dirs
    port = listener.getsockname()[1]
    with pytest.warns(RuntimeWarning, match="fork gave pass"), Oracle(workers=1, disabled={Protection.SECCOMP}) as weaker:
        assert Protection.SECCOMP not in weaker.protections
        result = weaker.run_one(Suite(CODE, (
            f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)",
            f"open({str(writable / 'escaped.txt')!r}, 'w').write('x')",
            NEXT_TEST,
        )))
    assert result.outcome_strings()[0].startswith("ERROR:")
    assert result.outcome_strings()[1].startswith("ERROR:")
    assert result.outcome_strings()[2] == "pass"
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert list(writable.iterdir()) == []


def test_strict_mode_refuses_a_missing_protection() -> None:
    with pytest.raises(OracleUnavailableError, match="seccomp.*disabled by the caller"):
        Oracle(workers=1, strict=True, disabled={Protection.SECCOMP}).start()


def test_strict_mode_runs_when_everything_is_active() -> None:
    with Oracle(workers=1, strict=True) as strict:
        assert set(strict.protections) == set(Protection)
        assert strict.canary_results and all(r.ok for r in strict.canary_results)


def test_the_start_up_self_check_names_each_canary_a_missing_layer_lets_through() -> None:
    """The quick canaries share suites at start (``run_quick``): each keeps its own verdict."""
    with pytest.warns(RuntimeWarning, match="self-check failed"):
        with Oracle(workers=1, disabled={Protection.SECCOMP}) as weak:
            verdicts = {r.canary.name: r.verdict for r in weak.canary_results}
            legitimate_ok = all(r.ok for r in weak.canary_results if r.canary.must_pass)
    for name in ("udp_socket", "fork", "exec_program", "signal_parent"):  # what only seccomp stops
        assert verdicts[name] == "pass", (name, verdicts[name])
    # an attack that alters the launcher costs only the verdicts of its suite apart
    assert verdicts["limit_the_launcher"].startswith("infra error: the launcher's resource limits changed")
    for name in ("write_outside_scratch", "read_outside_allow_list", "runs_as_root", "allocate_10gb"):
        assert verdicts[name] != "pass", (name, verdicts[name])
    assert legitimate_ok


def test_a_quick_canary_that_times_out_fails_the_self_check() -> None:
    """In a shared suite a hang would leave the next canaries unreached (TIMEOUT): never a pass."""
    chosen = [Canary("spins", "while True:\n    pass", must_pass=False), Canary("fine", "assert True", must_pass=True)]
    with Oracle(workers=1, limits=Limits(test_cpu_s=0.1)) as short:
        spins, fine = run_quick(chosen, 1, short._pool.run)
    assert not spins.ok and spins.infra_error == "a quick canary timed out"
    assert fine.ok


def test_host_scratch_root_is_private(oracle: Oracle) -> None:
    for server in oracle._pool.servers:
        assert server._scratch_root is not None
        assert stat.S_IMODE(os.stat(server._scratch_root).st_mode) == 0o711


def test_a_fork_server_that_dies_is_replaced_and_its_suite_retried_on_the_fresh_one() -> None:
    code = "def f(x):\n    return x + 1\n"
    with Oracle(workers=1) as oracle:
        server = oracle._pool.servers[0]
        assert server._proc is not None
        os.kill(server._proc.pid, 9)
        server._proc.wait()
        # died between suites: the suite runs on a fresh server
        assert oracle.run_one(Suite(code, (NEXT_TEST,))).outcome_strings() == ["pass"]
        # dies during a suite: not a verdict; the suite runs again, whole, on a fresh server
        victim = server._proc
        assert victim is not None
        timer = threading.Timer(0.5, os.kill, (victim.pid, 9))
        timer.start()
        result = oracle.run_one(Suite(code, ("import time\ntime.sleep(1.5)", NEXT_TEST)))
        timer.join()
        assert result.infra_error is None and result.outcome_strings() == ["pass", "pass"]
        assert server._proc is not victim and server.replaced == 2
        assert oracle.run_one(Suite(code, (NEXT_TEST, "import socket\nsocket.socketpair()"))).outcome_strings() == ["pass", "pass"]


def test_a_suite_the_harness_fails_on_twice_is_not_judged_and_the_next_ones_are() -> None:
    """One process for the whole worker uid: every fork of a suite's process fails, on both tries."""
    with pytest.warns(RuntimeWarning, match="self-check failed"), Oracle(workers=1, limits=Limits(processes=1)) as broken:
        result = broken.run_one(Suite(CODE, (NEXT_TEST,)))
        assert result.infra_kind is InfraErrorKind.FORK_FAILED and not result.judged and result.outcomes == ()
        assert "could not fork" in (result.infra_error or "") and "also on the first try" in (result.infra_error or "")
        assert broken.stats["infra_errors"] == 1 and broken.stats["workers_replaced"] >= 2


def test_a_dead_launcher_costs_its_worker_and_the_suite_runs_on_a_fresh_one() -> None:
    code = "def f(x):\n    return x + 1\n"
    with Oracle(workers=1) as oracle:
        assert oracle.run_one(Suite(code, (NEXT_TEST,))).outcome_strings() == ["pass"]
        server = oracle._pool.servers[0]
        assert server._proc is not None
        pid = server._proc.pid
        launchers = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        assert len(launchers) == 1
        os.kill(int(launchers[0]), 9)
        time.sleep(0.1)
        result = oracle.run_one(Suite(code, (NEXT_TEST, "assert f(2) == 3")))
        assert result.infra_error is None and result.outcome_strings() == ["pass", "pass"]
        assert server._proc is not None and server._proc.pid != pid and server.replaced == 1


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(), reason="needs root and setpriv to become nobody")
def test_the_sandbox_program_also_confines_when_started_unprivileged() -> None:
    """Started by an ordinary user, the program uses a user namespace: every layer but the uid switch."""
    import json
    import shutil
    import subprocess
    import tempfile

    from execretrieval_mteb.oracle.program import DEFAULT_READ_PATHS, find_interpreter, sandbox_command

    scratch = Path(tempfile.mkdtemp(prefix="xr-unprivileged-"))  # pytest's tmp_path is not reachable by nobody
    os.chown(scratch, 65534, 65534)
    config = {"limits": Limits().to_json(), "scratch_root": str(scratch), "read_paths": list(DEFAULT_READ_PATHS),
              "drop_uid": False, "uid_base": SANDBOX_UID_BASE, "disabled": [], "board_tests": 16, "board_bytes": 1 << 16,
              "timeout_confirm_factor": 2.0}
    request = json.dumps({"code": CODE, "tests": [NEXT_TEST, "import os\nos.fork()", "open('/etc/hostname').read()",
                                                  "import socket\nsocket.socket()"]})
    done = subprocess.run(
        ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         *sandbox_command(find_interpreter(world_readable=True).path, config)],
        input=request + "\n", capture_output=True, text=True, timeout=60, cwd="/",
    )
    shutil.rmtree(scratch)
    hello, reply = (json.loads(line) for line in done.stdout.splitlines())
    assert {"unprivileged_uid", "uid_per_worker"} <= set(hello["hello"]["missing"])
    assert {"network_namespace", "pid_namespace", "ipc_namespace", "landlock_filesystem", "seccomp",
            "self_only_process_calls", "fresh_scratch"} <= set(hello["hello"]["protections"])
    assert reply["outcomes"] == ["pass", "ERROR:PermissionError", "ERROR:FileNotFoundError", "ERROR:PermissionError"]
