"""No suite can touch another suite, the host, or the verdict: the second red-team round, attack by attack.

Each test runs the attack through the real sandbox, then checks that the suites that follow, on
the same worker and on the other one, get their correct verdicts, and that nothing is left on
the host. Suites are sent to a chosen worker through ``Oracle._pool.servers`` (one fork server
each), the way a pool would hand them out.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.outcomes import Suite, SuiteResult
from execretrieval_mteb.oracle.pool import ForkServer

CODE = "def f(x):\n    return x + 1\n"
BENIGN = [  # (suite, expected verdicts): a pass, a wrong answer, a crash
    (Suite(CODE, ("assert f(1) == 2", "assert f(2) == 3")), ["pass", "pass"]),
    (Suite(CODE, ("assert f(1) == 3",)), ["FAIL"]),
    (Suite(CODE, ("assert f(None) == 1", "import os\nassert open('x', 'w').write('ok') == 2")), ["ERROR:TypeError", "pass"]),
]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attacks target the uid-per-worker layout (needs root)")


@pytest.fixture(scope="module")
def pair() -> Iterator[Oracle]:
    """A two-worker oracle of this module's own: attacks must not be able to leave it broken for others."""
    with Oracle(workers=2) as oracle:
        yield oracle


def launcher_pid(server: ForkServer) -> int:
    """The host pid of a started server's launcher (its only child)."""
    server.start()
    assert server._proc is not None
    pid = server._proc.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def process_state(pid: int) -> tuple[str, int, set[int], int, bool]:
    """What an attack could change of a process: limits, nice value, affinity, policy, whether it is stopped."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return (Path(f"/proc/{pid}/limits").read_text(), os.getpriority(os.PRIO_PROCESS, pid),
            os.sched_getaffinity(pid), os.sched_getscheduler(pid), stat[stat.rindex(")") + 2] in "tT")


def assert_benign_verdicts(server: ForkServer) -> None:
    for suite, expected in BENIGN:
        result = server.run(suite)
        assert result.judged and result.outcome_strings() == expected, (expected, result)


def sysv_ipc_objects() -> dict[str, list[str]]:
    return {kind: Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:] for kind in ("shm", "msg", "sem")}


def attack(test: str) -> Suite:
    """A suite whose first test is the attack and whose second must still pass."""
    return Suite(CODE, (test, "assert f(1) == 2"))


def assert_denied(server: ForkServer, attacks: dict[str, str]) -> None:
    """Each attack fails with EPERM, and the test after it in its suite still passes."""
    for name, test in attacks.items():
        result = server.run(attack(test))
        assert result.outcome_strings() == ["ERROR:PermissionError", "pass"], (name, result)


def libc_call(call: str, setup: str = "") -> str:
    """Test text making a raw libc call through ctypes; a failed call raises OSError with its errno."""
    return (f"import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n{setup}"
            f"if {call} < 0:\n    raise OSError(ctypes.get_errno(), 'denied')")


# -- 1. poisoning later suites through the launcher ------------------------------------------------

POISONS = {
    "address_space": "import os, resource\nresource.prlimit(TARGET, resource.RLIMIT_AS, (120 << 20, 120 << 20))",
    "open_files": "import os, resource\nresource.prlimit(TARGET, resource.RLIMIT_NOFILE, (3, 3))",
    "file_size": "import os, resource\nresource.prlimit(TARGET, resource.RLIMIT_FSIZE, (0, 0))",
    "stack": "import os, resource\nresource.prlimit(TARGET, resource.RLIMIT_STACK, (1 << 16, 1 << 16))",
    "nice": "import os\nos.setpriority(os.PRIO_PROCESS, TARGET, 19)",
    "nice_every_process_of_the_uid": "import os\nos.setpriority(os.PRIO_USER, 0, 19)",
    "affinity": "import os\nos.sched_setaffinity(TARGET, {0})",
    "idle_policy": "import os\nos.sched_setscheduler(TARGET, os.SCHED_IDLE, os.sched_param(0))",
    "upper_bits_in_the_pid": libc_call("libc.syscall(302, ctypes.c_long((1 << 32) | TARGET), 7, limit, None)",
                                       setup="limit = (ctypes.c_ulong * 2)(3, 3)\n"),
}


@pytest.mark.parametrize("where", ["same_worker", "other_worker"])
def test_a_suite_cannot_poison_a_launcher_and_the_next_suites_are_judged_right(pair: Oracle, where: str) -> None:
    attacker, victim = pair._pool.servers[0], pair._pool.servers[0 if where == "same_worker" else 1]
    target = launcher_pid(victim)
    before = process_state(target)
    # in the attacker's PID namespace its launcher is 1; the victim's host pid names nothing there
    numbers = {"same_worker": "os.getppid()", "other_worker": str(target)}[where]
    assert_denied(attacker, {name: poison.replace("TARGET", numbers) for name, poison in POISONS.items()})
    scan = ("import os, resource\nhit = 0\nfor pid in range(1, 32768):\n    try:\n"
            "        resource.prlimit(pid, resource.RLIMIT_AS, (120 << 20, 120 << 20))\n        hit += 1\n"
            "    except OSError:\n        pass\nassert hit == 0")
    assert attacker.run(attack(scan)).outcome_strings() == ["pass", "pass"]
    assert process_state(target) == before
    assert launcher_pid(victim) == target  # not replaced: nothing was altered
    assert_benign_verdicts(victim)


def test_a_suite_cannot_poison_another_oracle_on_the_machine(pair: Oracle) -> None:
    with Oracle(workers=1) as bystander:
        target = launcher_pid(bystander._pool.servers[0])
        before = process_state(target)
        assert_denied(pair._pool.servers[0], {name: poison.replace("TARGET", str(target)) for name, poison in POISONS.items()})
        assert process_state(target) == before
        assert_benign_verdicts(bystander._pool.servers[0])


def test_the_cli_with_two_workers_judges_every_suite_around_poisoning_ones(tmp_path: Path) -> None:
    rows = []
    for i in range(30):
        suite, expected = BENIGN[i % len(BENIGN)]
        rows.append({"id": f"benign-{i}", "code": suite.code + f"# {i}\n", "tests": list(suite.tests), "expected": expected})
        if i % 10 == 3:
            for name in ("address_space", "open_files", "file_size", "stack", "nice_every_process_of_the_uid"):
                test = POISONS[name].replace("TARGET", "os.getppid()")
                rows.append({"id": f"poison-{name}-{i}", "code": CODE, "tests": [test],
                             "expected": ["ERROR:PermissionError"]})
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({k: r[k] for k in ("id", "code", "tests")}) + "\n" for r in rows))
    done = subprocess.run(
        [sys.executable, "-m", "execretrieval_mteb.cli.main", "oracle", "run", str(source), "-o", str(tmp_path / "out.jsonl"),
         "--workers", "2", "--cache", str(tmp_path / "cache.sqlite"), "--strict"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [o["outcomes"] for o in out] == [r["expected"] for r in rows]
    assert "0 infrastructure errors" in done.stderr and "replaced" not in done.stderr


# -- 2. defeating the clean-up ---------------------------------------------------------------------

def test_nothing_a_suite_leaves_in_its_scratch_directory_breaks_the_worker(pair: Oracle) -> None:
    server = pair._pool.servers[0]
    replaced = server.replaced
    leftovers = [
        "import os\nfor _ in range(300):\n    os.mkdir('d')\n    os.chdir('d')",
        "import os\nfor i in range(20000):\n    open(f'f{i}', 'w').close()",  # more files than the tmpfs holds
        "import os\nos.mkdir('locked')\nopen('locked/x', 'w').close()\nos.chmod('locked', 0)\nos.chmod('.', 0)",
        "import os\nos.symlink('/etc', 'etc')\nos.mkfifo('fifo')",
        "import os\nopen('gone', 'w').close()\nos.unlink('gone')\nos.setxattr('.', 'user.note', b'left for the next suite')",
    ]
    for test in leftovers:
        result = server.run(Suite(CODE, (test, "assert f(1) == 2")))
        assert result.judged and result.outcome_strings()[1] == "pass", result
        clean = "import os\nassert os.listdir('.') == [] and os.listxattr('.') == [] and os.stat('.').st_mode & 0o777 == 0o700"
        assert server.run(Suite(CODE, (clean,))).outcome_strings() == ["pass"]
    assert server.replaced == replaced
    assert_benign_verdicts(server)
    assert server._scratch_root is not None and os.listdir(server._scratch_root) == []


# -- 3. unix datagrams and descriptors to the host -------------------------------------------------

@pytest.fixture
def host_datagram_socket() -> Iterator[tuple[socket.socket, str]]:
    base = Path("/tmp") / f"xr-dgram-{uuid.uuid4().hex[:8]}"
    base.mkdir()
    base.chmod(0o777)
    path = str(base / "host.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o777)
    sock.setblocking(False)
    yield sock, path
    sock.close()
    os.unlink(path)
    base.rmdir()


def test_no_datagram_or_descriptor_reaches_a_host_socket(pair: Oracle, host_datagram_socket: tuple[socket.socket, str]) -> None:
    sock, path = host_datagram_socket
    attempts = {
        "datagram_pair": (f"import socket\na, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\na.sendto(b'x', {path!r})",
                          "ERROR:PermissionError"),
        "seqpacket_pair": ("import socket\nsocket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)", "ERROR:PermissionError"),
        "datagram_socket": (f"import socket\nsocket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', {path!r})",
                            "ERROR:PermissionError"),
        "stream_pair_to_a_path": (f"import socket\na, b = socket.socketpair()\na.sendto(b'x', {path!r})", "ERROR:OSError"),
        "descriptor_to_a_path": ("import array, os, socket\na, b = socket.socketpair()\n"
                                 "a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [0]))], 0, "
                                 f"{path!r})", "ERROR:PermissionError"),  # no sendmsg at all
        "raw_datagram_pair": ("import ctypes\nfds = (ctypes.c_int * 2)()\n"
                              "assert ctypes.CDLL(None).socketpair(1, (1 << 32) | 2, 0, fds) != 0", "pass"),
    }
    for name, (test, contained) in attempts.items():
        result = pair._pool.servers[0].run(attack(test))
        assert result.outcome_strings() == [contained, "pass"], (name, result)
    with pytest.raises(BlockingIOError):
        sock.recv(16)
    legitimate = "import socket\na, b = socket.socketpair()\na.send(b'x')\nassert b.recv(1) == b'x'"
    assert pair._pool.servers[0].run(attack(legitimate)).outcome_strings() == ["pass", "pass"]


# -- 4. IPC objects that outlive the suite ---------------------------------------------------------

def test_no_ipc_object_is_created_or_left_behind(pair: Oracle) -> None:
    before = sysv_ipc_objects()
    mqueues = set(os.listdir("/dev/mqueue")) if os.path.isdir("/dev/mqueue") else set()
    assert_denied(pair._pool.servers[0], {
        "shared_memory": libc_call("libc.shmget(0, 64 << 20, 0o1600)"),
        "message_queue": libc_call("libc.msgget(0, 0o1600)"),
        "semaphores": libc_call("libc.semget(0, 4, 0o1600)"),
        "posix_message_queue": libc_call("libc.mq_open(b'/xr-attack', 0o102, 0o600, None)"),
    })
    assert sysv_ipc_objects() == before
    if os.path.isdir("/dev/mqueue"):
        assert set(os.listdir("/dev/mqueue")) == mqueues


# -- 5. signal-driven I/O aimed at the launcher ----------------------------------------------------

def test_signal_driven_io_cannot_signal_the_launcher(pair: Oracle) -> None:
    server = pair._pool.servers[0]
    target = launcher_pid(server)
    before = process_state(target)
    setup = "import fcntl, os, struct, signal\nr, w = os.pipe()\n"
    attempts = {
        "set_owner": "fcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())",
        "set_signal": "fcntl.fcntl(r, 10, signal.SIGKILL)",
        "set_owner_ex": "fcntl.fcntl(r, 15, struct.pack('ii', 1, os.getppid()))",
        "async_flag": "fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)",
        "ioctl_set_owner": "fcntl.ioctl(r, 0x8901, struct.pack('i', os.getppid()))",
        "ioctl_async": "fcntl.ioctl(r, 0x5452, struct.pack('i', 1))",
        "upper_bits_in_the_command": libc_call("libc.syscall(72, r, ctypes.c_long((1 << 32) | 8), os.getppid())"),
    }
    assert_denied(server, {name: setup + test + "\nos.write(w, b'x' * 100)" for name, test in attempts.items()})
    assert process_state(target) == before and not before[-1]
    assert launcher_pid(server) == target
    assert_benign_verdicts(server)


# -- 6. starving the other worker of processes -----------------------------------------------------

def test_a_thread_bomb_on_one_worker_does_not_starve_the_other(pair: Oracle) -> None:
    bomb = ("import threading, time\nthreading.stack_size(64 << 10)\nstop = threading.Event()\nn = 0\ntry:\n"
            "    for _ in range(2000):\n        threading.Thread(target=stop.wait, daemon=True).start()\n        n += 1\n"
            "except RuntimeError:\n    pass\ntime.sleep(1.5)\nassert n >= 2000")
    first, second = pair._pool.servers
    first.start(), second.start()
    replaced = second.replaced
    results: dict[str, SuiteResult] = {}
    thread = threading.Thread(target=lambda: results.setdefault("bomb", first.run(attack(bomb))))
    thread.start()
    time.sleep(0.5)  # the bomb holds its threads for 1.5 s from about now
    others = [second.run(suite) for suite, _ in BENIGN * 4]
    thread.join()
    assert results["bomb"].outcome_strings() == ["FAIL", "pass"]  # stopped at its own worker's limit
    assert [r.outcome_strings() for r in others] == [expected for _, expected in BENIGN * 4]
    assert second.replaced == replaced  # no fork of the other worker failed, not even once
    assert_benign_verdicts(first)


# -- 7. reading earlier suites' code from inherited memory -----------------------------------------

SCANNER = '''
import ctypes, mmap, sys
libc = ctypes.CDLL(None)
libc.sbrk.restype = ctypes.c_void_p
vec = (ctypes.c_ubyte * 1)()
page = mmap.PAGESIZE

def heap():
    """Every page of the brk heap and what is mapped right below it (mincore: no read of an unmapped page)."""
    end = libc.sbrk(0) // page * page
    chunks, addr = [], end - page
    while libc.mincore(ctypes.c_void_p(addr), page, vec) == 0:
        chunks.append(ctypes.string_at(addr, page))
        addr -= page
    return b"".join(reversed(chunks))

def shared_board():
    """The memory the child shares with the server (the harness's frame holds it)."""
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "_run_tests":
        frame = frame.f_back
    return bytes(frame.f_locals["board"].mem)

memory = heap() + shared_board()
'''


def test_a_child_finds_no_earlier_suite_in_the_memory_it_inherits(pair: Oracle) -> None:
    server = pair._pool.servers[1]
    earlier, mine = f"EARLIER{uuid.uuid4().hex}", f"MINE{uuid.uuid4().hex}"
    padding = "# " + "x" * 2000 + "\n"  # big enough to live on the malloc heap, not in a small-object arena
    # longer than the probe, its secret at the end: a later, shorter suite cannot overwrite it in place
    assert server.run(Suite(CODE + padding * 30 + f"SECRET = {earlier!r}\n", ("assert f(1) == 2",))).passed
    probe = (f"assert {mine[:4]!r} + {mine[4:]!r} in memory.decode('latin-1')",  # the scanner sees this suite
             f"assert {earlier[:7]!r} + {earlier[7:]!r} not in memory.decode('latin-1')")
    result = server.run(Suite(CODE + padding + f"MINE = {mine!r}\n" + SCANNER, probe))
    assert result.outcome_strings() == ["pass", "pass"], result


def test_a_child_inherits_a_launcher_that_never_held_the_server_or_a_suite(pair: Oracle) -> None:
    """The launcher is a fresh interpreter running the launcher's modules only: none of the fork
    server's code (which reads the suites) is in the memory a child inherits."""
    probe = ("import __main__\nassert callable(__main__._run_tests) and callable(__main__.launcher_main)",
             "import __main__\nassert not hasattr(__main__, 'serve') and not hasattr(__main__, '_run_suite')")
    assert pair._pool.servers[0].run(Suite(CODE, probe)).outcome_strings() == ["pass", "pass"]


# -- 8. metadata of the host ----------------------------------------------------------------------

def test_nothing_outside_the_allow_list_can_be_named_or_watched(pair: Oracle, tmp_path: Path) -> None:
    secret = Path("/tmp") / f"xr-metadata-{uuid.uuid4().hex[:8]}"
    secret.write_text("x")
    try:
        for path in (str(secret), "/etc/hostname", "/etc/passwd", "/root", "/work", "/home", "/proc/1", "/proc/self/exe",
                     "/sys/kernel", "/dev/shm", "/run"):
            for call in ("os.stat", "os.lstat", "os.readlink"):
                test = f"import os\n{call}({path!r})"
                assert pair._pool.servers[0].run(attack(test)).outcome_strings() == ["ERROR:FileNotFoundError", "pass"], (call, path)
        assert_denied(pair._pool.servers[0], {"inotify": libc_call("libc.inotify_init1(0)")})
        allowed = ("import os, sys\nassert os.path.isdir('/usr/lib') and os.readlink('/lib') == 'usr/lib'\n"
                   "assert os.path.exists(sys.executable) and os.path.exists('/etc/localtime')")
        assert pair._pool.servers[0].run(attack(allowed)).outcome_strings() == ["pass", "pass"]
    finally:
        secret.unlink()


# -- the second oracle check: the server replaces an altered launcher ------------------------------

def _renice(pid: int, uid: int) -> None:
    os.setpriority(os.PRIO_PROCESS, pid, 10)  # root may renice anyone


def _lower_open_files(pid: int, uid: int) -> None:
    """As the launcher's own uid (a root process without CAP_SYS_RESOURCE may not touch another uid's limits)."""
    change = (f"import os, resource\nos.setgroups([])\nos.setresgid({uid}, {uid}, {uid})\nos.setresuid({uid}, {uid}, {uid})\n"
              f"resource.prlimit({pid}, resource.RLIMIT_NOFILE, (10, 10))")
    subprocess.run(["/usr/bin/python3", "-c", change], check=True, timeout=30)


@pytest.mark.parametrize("alter", [_renice, _lower_open_files])
def test_a_launcher_found_altered_is_replaced_and_the_suite_rerun(pair: Oracle, alter: Callable[[int, int], None]) -> None:
    """What the seccomp rules forbid a suite, the test does from outside: the server must notice
    after the suite, not judge it on the altered launcher, and retire; the suite runs again on a
    fresh worker."""
    server = pair._pool.servers[0]
    target, replaced = launcher_pid(server), server.replaced
    timer = threading.Timer(0.3, alter, (target, server.uid))
    timer.start()
    result = server.run(Suite(CODE, ("import time\ntime.sleep(0.6)", "assert f(1) == 2")))
    timer.join()
    assert result.judged and result.outcome_strings() == ["pass", "pass"]  # rerun on a fresh worker
    assert server.replaced == replaced + 1 and launcher_pid(server) != target
    assert_benign_verdicts(server)


def test_a_launcher_altered_in_the_middle_of_a_batch_costs_no_other_suite_its_verdict(pair: Oracle) -> None:
    """Suites reach a server in batches: the ones before the altered suite keep their verdicts, that
    one is rerun, and the rest of the batch follows it to the fresh worker."""
    server = pair._pool.servers[1]
    target, replaced = launcher_pid(server), server.replaced
    suites = [suite for suite, _ in BENIGN] + [Suite(CODE, ("import time\ntime.sleep(0.6)", "assert f(1) == 2"))]
    suites += [suite for suite, _ in BENIGN]
    timer = threading.Timer(0.3, _renice, (target, server.uid))
    timer.start()
    results = server.run_many(suites)
    timer.join()
    expected = [verdicts for _, verdicts in BENIGN] + [["pass", "pass"]] + [verdicts for _, verdicts in BENIGN]
    assert [result.outcome_strings() for result in results] == expected
    assert all(result.judged for result in results)
    assert server.replaced == replaced + 1 and launcher_pid(server) != target
