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
    alone: bool = False
    """True when the attack, should it work, would disturb the canaries after it in a shared process
    (a second process running them, a launcher found altered): ``run_quick`` gives it a suite of its own."""

    @property
    def suite(self) -> Suite:
        return Suite(self.code, (self.test,))


CANARIES: tuple[Canary, ...] = (
    Canary("loopback_connect", "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1).close()", False),
    Canary("outside_connect", "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1).close()", False),
    Canary("udp_socket", "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()", False),
    Canary("write_outside_scratch", f"open({_MARKER!r}, 'w').write('escaped')", False),
    Canary("read_outside_allow_list", "open('/etc/hostname').read()", False),
    Canary("list_root_home", "import os\nos.listdir('/root')", False),
    Canary("runs_as_root", "import os\nassert os.getuid() == 0", False),
    Canary("fork", "import os\nos.fork()", False, alone=True),
    Canary("exec_program", "import subprocess\nsubprocess.run(['/bin/true'], check=True)", False),
    Canary("signal_parent", "import os\nos.kill(os.getppid(), 0)", False),
    Canary("ptrace_parent", "import ctypes, os\nassert ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0) == 0", False,
           alone=True),
    Canary("allocate_10gb", "buf = bytearray(10 * 2**30)", False),
    Canary("file_bigger_than_limit", "f = open('big.bin', 'wb', buffering=0)\nf.seek(64 << 20)\nf.write(b'x')", False),
    Canary("threads_work", "import threading\nout = []\nt = threading.Thread(target=out.append, args=(1,))\nt.start(); t.join()\nassert out == [1]", True),
    Canary("lazy_stdlib_imports", "import decimal, fractions, zoneinfo, heapq, bisect, re\nassert str(zoneinfo.ZoneInfo('Europe/Paris'))", True),
    Canary("scratch_is_writable", "open('note.txt', 'w').write('hi')\nassert open('note.txt').read() == 'hi'", True),
    Canary("bounded_recursion", "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nassert depth(900) == 900", True),
    Canary("limit_the_launcher", "import os, resource\nresource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3))", False,
           alone=True),
    Canary("renice_the_launcher", "import os\nos.setpriority(os.PRIO_PROCESS, os.getppid(), 19)", False, quick=False),
    Canary("renice_every_process_of_the_uid", "import os\nos.setpriority(os.PRIO_USER, 0, 19)", False, quick=False),
    Canary("pin_the_launcher", "import os\nos.sched_setaffinity(os.getppid(), {0})", False, quick=False),
    Canary("sees_processes_outside", "import os\nassert os.getppid() != 1", False, quick=False),
    Canary("stat_outside_allow_list", "import os\nos.stat('/etc/hostname')", False, quick=False),
    Canary("signal_driven_io_to_the_launcher", "import fcntl, os\nr, w = os.pipe()\nfcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())",
           False, quick=False),
    Canary("datagram_socketpair", "import socket\nsocket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)", False, quick=False),
    Canary("sysv_shared_memory", "import ctypes\nassert ctypes.CDLL(None, use_errno=True).shmget(0, 4096, 0o1600) >= 0",
           False, quick=False),
    Canary("posix_message_queue", "import ctypes\nassert ctypes.CDLL(None).mq_open(b'/xr-canary', 0o102, 0o600, None) >= 0",
           False, quick=False),
    Canary("inotify", "import ctypes\nassert ctypes.CDLL(None).inotify_init() >= 0", False, quick=False),
    Canary("stream_socketpair_works", "import socket\na, b = socket.socketpair()\na.send(b'x')\nassert b.recv(1) == b'x'",
           True, quick=False),
    Canary("own_limits_work", "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (32, 64))\n"
           "assert resource.getrlimit(resource.RLIMIT_NOFILE) == (32, 64)", True, quick=False),
    Canary("python_infinite_loop", "while True:\n    pass", False, quick=False),
    Canary("c_level_infinite_loop", "import itertools\nsum(itertools.repeat(1))", False, quick=False),
    Canary("sleep", "import time\ntime.sleep(60)", False, quick=False),
)


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
    those marked ``alone``, which get a suite each.

    The tests of a suite share a process, so the modules they import load once (measured: the
    start-up's self-check takes 16 ms instead of 28). Quick canaries end within milliseconds: one
    that times out (or is left unreached by a suite's deadline, also TIMEOUT) fails the check
    rather than counting as contained.
    """
    if any(not c.quick for c in chosen):
        raise ValueError("only quick canaries share suites: a slow one could leave the others unreached")
    buckets: dict[tuple[str, int], list[int]] = {}
    shared = 0
    for i, canary in enumerate(chosen):
        if canary.alone:
            buckets[(canary.code, -1 - i)] = [i]
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
