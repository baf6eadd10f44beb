"""Canary snippets that prove the sandbox holds: hostile ones must not pass, legitimate ones must.

Each canary is a test that *succeeds* only if the hostile action worked, so a contained canary
has any verdict but ``pass``. The quick canaries run whenever an ``Oracle`` starts, a few suites
of several canaries each (``run_quick``); ``execretrieval oracle selfcheck`` also runs the slow
ones (timeouts), each as a suite of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .outcomes import OutcomeKind, Suite, SuiteResult, TestOutcome

_MARKER = "/tmp/execretrieval-oracle-canary"


@dataclass(frozen=True, slots=True)
class Canary:
    name: str
    test: str
    must_pass: bool
    """True for legitimate code that must keep working; False for an attack that must be contained."""
    quick: bool = True
    code: str = ""
    apart: str = ""
    """Non-empty when the attack, should it work, would disturb the canaries after it in a shared
    process (a second process running them, a launcher found altered): ``run_quick`` gives the
    canaries with the same ``apart`` a suite of their own (``"alone"``: one each)."""

    @property
    def suite(self) -> Suite:
        return Suite(self.code, (self.test,))


_MLOCK = ("import ctypes, mmap\nbuf = mmap.mmap(-1, 1 << 20)\n"
          "assert ctypes.CDLL(None).mlock(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(buf))), 1 << 20) == 0")

CANARIES: tuple[Canary, ...] = (
    # network: seccomp (sockets), Landlock (TCP), the network namespace
    Canary("loopback_connect", "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1).close()", False),
    Canary("outside_connect", "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1).close()", False),
    Canary("udp_socket", "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()", False),
    Canary("datagram_socketpair", "import socket\nsocket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)", False),
    Canary("stream_socketpair_works", "import socket\na, b = socket.socketpair()\na.send(b'x')\nassert b.recv(1) == b'x'",
           True),
    # files: minimal root, Landlock, read-only mounts, the scratch tmpfs
    Canary("write_outside_scratch", f"open({_MARKER!r}, 'w').write('escaped')", False),
    Canary("read_outside_allow_list", "open('/etc/hostname').read()", False),
    Canary("stat_outside_allow_list", "import os\nos.stat('/etc/hostname')", False),
    Canary("list_root_home", "import os\nos.listdir('/root')", False),
    Canary("scratch_is_writable", "open('note.txt', 'w').write('hi')\nassert open('note.txt').read() == 'hi'", True),
    Canary("scratch_is_a_small_file_system", "import os\nst = os.statvfs('.')\n"
           "assert st.f_files <= 1 << 20 and st.f_blocks * st.f_frsize <= 1 << 32", True),
    Canary("inotify", "import ctypes\nassert ctypes.CDLL(None).inotify_init() >= 0", False),
    # what could outlive the suite
    Canary("descriptor_passing", "import array, socket\na, b = socket.socketpair()\n"
           "a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [a.fileno()]))])", False),
    Canary("nameless_file", "import os\nos.close(os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o600))", False),
    Canary("memory_file", "import os\nos.close(os.memfd_create('canary'))", False),
    Canary("sysv_shared_memory", "import ctypes\nassert ctypes.CDLL(None, use_errno=True).shmget(0, 4096, 0o1600) >= 0",
           False),
    Canary("posix_message_queue", "import ctypes\nassert ctypes.CDLL(None).mq_open(b'/xr-canary', 0o102, 0o600, None) >= 0",
           False),
    # processes: seccomp, the PID and UTS namespaces, the uid
    Canary("runs_as_root", "import os\nassert os.getuid() == 0", False),
    Canary("fork", "import os\nos.fork()", False, apart="processes"),
    Canary("raw_fork", "import ctypes, os\npid = ctypes.CDLL(None).syscall(57)\nif pid == 0:\n    os._exit(0)\nassert pid > 0",
           False, apart="processes"),
    Canary("exec_program", "import subprocess\nsubprocess.run(['/bin/true'], check=True)", False),
    Canary("exec_missing_program", "import os\ntry:\n    os.execv('/nonexistent', ['x'])\nexcept FileNotFoundError:\n    pass",
           False),  # FileNotFoundError only when execve may run (EPERM otherwise)
    Canary("signal_parent", "import os\nos.kill(os.getppid(), 0)", False),
    Canary("pidfd_of_itself", "import os\nos.close(os.pidfd_open(os.getpid()))", False),
    Canary("ptrace_parent", "import ctypes, os\nassert ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0) == 0", False,
           apart="launcher"),
    Canary("leave_process_group", "import os\nos.setpgid(0, 0)", False),
    Canary("own_process_group", "import os\nassert os.getpgid(0) == os.getpid()", True),
    Canary("sees_processes_outside", "import os\nassert os.getppid() != 1", False),
    Canary("sees_the_host_name", "import os\nassert os.uname().nodename != 'sandbox'", False),
    Canary("kernel_admin_call", "import ctypes\nassert ctypes.CDLL(None).personality(0xffffffff) >= 0", False),
    Canary("no_new_privs_is_set", "import ctypes\nassert ctypes.CDLL(None).prctl(39, 0, 0, 0, 0) == 1", True),
    Canary("threads_work", "import threading\nout = []\nt = threading.Thread(target=out.append, args=(1,))\nt.start(); t.join()\nassert out == [1]", True),
    # the launcher, from its child (a suite apart: if one worked, the launcher would be found altered
    # after it, and every canary of that suite would fail the check, not only its own)
    Canary("limit_the_launcher", "import os, resource\nresource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3))", False,
           apart="launcher"),
    Canary("renice_the_launcher", "import os\nos.setpriority(os.PRIO_PROCESS, os.getppid(), 19)", False, apart="launcher"),
    Canary("renice_every_process_of_the_uid", "import os\nos.setpriority(os.PRIO_USER, 0, 19)", False, apart="launcher"),
    Canary("pin_the_launcher", "import os\nos.sched_setaffinity(os.getppid(), {0})", False, apart="launcher"),
    Canary("signal_driven_io_to_the_launcher", "import fcntl, os\nr, w = os.pipe()\nfcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())",
           False),
    # limits
    Canary("allocate_10gb", "buf = bytearray(10 * 2**30)", False),
    Canary("file_bigger_than_limit", "f = open('big.bin', 'wb', buffering=0)\nf.seek(64 << 20)\nf.write(b'x')", False),
    Canary("open_many_files", "import os\nfds = []\ntry:\n    for _ in range(100):\n        fds.append(os.open('/dev/null', os.O_RDONLY))\n"
           "finally:\n    for fd in fds:\n        os.close(fd)", False),
    Canary("lock_memory", _MLOCK, False),
    Canary("no_cpu_timer", "import signal\nassert signal.getitimer(signal.ITIMER_PROF)[0] == 0", False),
    Canary("no_wall_timer", "import signal\nassert signal.getitimer(signal.ITIMER_REAL)[0] == 0", False),
    Canary("process_limit_is_set", "import resource\nassert resource.getrlimit(resource.RLIMIT_NPROC)[1] <= 1 << 16", True),
    Canary("lazy_stdlib_imports", "import decimal, fractions, zoneinfo, heapq, bisect, re\nassert str(zoneinfo.ZoneInfo('Europe/Paris'))", True),
    Canary("bounded_recursion", "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nassert depth(900) == 900", True),
    Canary("own_limits_work", "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (32, 64))\n"
           "assert resource.getrlimit(resource.RLIMIT_NOFILE) == (32, 64)", True, apart="alone"),
    # slow: the budgets themselves (``execretrieval oracle selfcheck``)
    Canary("python_infinite_loop", "while True:\n    pass", False, quick=False),
    Canary("c_level_infinite_loop", "import itertools\nsum(itertools.repeat(1))", False, quick=False),
    Canary("timers_silenced", "import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, "
           "{signal.SIGALRM, signal.SIGPROF, signal.SIGXCPU})\nend = time.process_time() + 1.5\n"
           "while time.process_time() < end:\n    pass", False, quick=False),
    Canary("sleep", "import time\ntime.sleep(60)", False, quick=False),
)
"""Each layer a verdict depends on has a quick canary that fails when the layer is missing (see
``LAYER_CANARIES``); the slow ones check the CPU and wall budgets by spending them."""

LAYER_CANARIES: dict[str, tuple[str, ...]] = {
    # seccomp rule groups (``sandbox/seccomp.py``), each removed in turn by tests/oracle/test_selfcheck.py
    "new_programs": ("raw_fork", "exec_missing_program"),
    "other_processes": ("pidfd_of_itself",),
    "self_only_calls": ("limit_the_launcher", "renice_the_launcher", "pin_the_launcher"),
    "signal_driven_io": ("signal_driven_io_to_the_launcher",),
    "sockets": ("udp_socket",),
    "socketpair_types": ("datagram_socketpair",),
    "descriptor_passing": ("descriptor_passing",),
    "anonymous_files": ("nameless_file", "memory_file"),
    "ipc_objects": ("sysv_shared_memory",),  # a POSIX queue is also refused by RLIMIT_MSGQUEUE 0
    "watching": ("inotify",),
    "kernel_admin": ("kernel_admin_call",),
    "threads_only": ("fork",),
    "signals_to_self": ("signal_parent",),
    "own_process_group": ("leave_process_group",),
    # namespaces, the root, the uid and the limits
    "pid_namespace": ("sees_processes_outside",),
    "uts_namespace": ("sees_the_host_name",),
    "minimal_root": ("stat_outside_allow_list",),  # reading and listing: Landlock refuses them too
    "scratch_tmpfs": ("scratch_is_a_small_file_system",),
    "unprivileged_uid": ("runs_as_root",),
    "no_new_privs": ("no_new_privs_is_set",),
    "process_group_kill": ("own_process_group",),
    "rlimits": ("allocate_10gb", "file_bigger_than_limit", "open_many_files", "lock_memory", "process_limit_is_set"),
    "cpu_time_limit": ("no_cpu_timer",),
    "wall_deadline": ("no_wall_timer",),
}
"""Which canaries fail when a layer (or a seccomp rule group) is missing. Layers not listed are
covered by several canaries at once (the network namespace, Landlock, the read-only mounts and
the IPC namespace sit behind seccomp's rules for the same calls), or checked by the server itself
(``worker_cgroup``: the launcher must be its only process at start; ``launcher_check``,
``fresh_scratch``: after every suite)."""


@dataclass(frozen=True, slots=True)
class CanaryResult:
    canary: Canary
    outcome: TestOutcome | None
    infra_error: str | None = None

    @property
    def ok(self) -> bool:
        if self.outcome is None:
            return False
        return self.outcome.passed == self.canary.must_pass

    @property
    def verdict(self) -> str:
        return self.outcome.to_str() if self.outcome is not None else f"infra error: {self.infra_error}"


def canaries(quick_only: bool) -> tuple[Canary, ...]:
    return tuple(c for c in CANARIES if c.quick or not quick_only)


def judge(chosen: Sequence[Canary], results: Sequence[SuiteResult]) -> list[CanaryResult]:
    """Pair each canary with its verdict."""
    return [
        CanaryResult(c, r.outcomes[0] if r.outcomes else None, r.infra_error)
        for c, r in zip(chosen, results, strict=True)
    ]


def run_quick(chosen: Sequence[Canary], groups: int, run: Callable[[list[Suite]], list[SuiteResult]]) -> list[CanaryResult]:
    """Run quick canaries as ``groups`` suites (one per worker), each canary one test of them, but
    those set ``apart``, which share a suite with the canaries of the same ``apart`` only (``"alone"``:
    a suite each).

    The tests of a suite share a process, so the modules they import load once (measured: the
    start-up's self-check takes 16 ms instead of 28). Quick canaries end within milliseconds: one
    that times out (or is left unreached by a suite's deadline, also TIMEOUT) fails the check
    rather than counting as contained.
    """
    if any(not c.quick for c in chosen):
        raise ValueError("only quick canaries share suites: a slow one could leave the others unreached")
    buckets: dict[tuple[str, int | str], list[int]] = {}
    shared = 0
    for i, canary in enumerate(chosen):
        if canary.apart == "alone":
            buckets[(canary.code, -1 - i)] = [i]
        elif canary.apart:
            buckets.setdefault((canary.code, canary.apart), []).append(i)
        else:
            buckets.setdefault((canary.code, shared % max(1, groups)), []).append(i)
            shared += 1
    keys = list(buckets)
    results = run([Suite(code, tuple(chosen[i].test for i in buckets[(code, g)])) for code, g in keys])
    judged: list[CanaryResult | None] = [None] * len(chosen)
    for key, result in zip(keys, results, strict=True):
        for position, i in enumerate(buckets[key]):
            outcome = result.outcomes[position] if result.outcomes else None
            if outcome is not None and outcome.kind is OutcomeKind.TIMEOUT:
                judged[i] = CanaryResult(chosen[i], None, "a quick canary timed out")
            else:
                judged[i] = CanaryResult(chosen[i], outcome, result.infra_error)
    return judged  # type: ignore[return-value]
