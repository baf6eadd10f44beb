"""What runs inside each suite's sandboxed child: the test runner and its progress board.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``) and run by a world-readable
interpreter that may not be able to read this package. It uses the ``sandbox_*`` functions and
the pytest shim (``pytest``, ``_DidNotRaise``) defined by the sources placed before it.

A child (forked by the launcher, ``launcher.py``) confines itself and runs the tests in order,
posting the running test and each verdict on a shared-memory board (``_Board``) that the fork
server watches (``server.py``).
"""

import mmap
import os
import re
import signal
import struct
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .isolation import sandbox_confine_child
except ImportError:
    pass

_OUTCOME = re.compile(r"pass|TIMEOUT|FAIL(:[\w.|]+)?|ERROR:[\w.|]+")


# Captured before any untrusted code runs, so that a test rebinding os._exit/time.monotonic cannot stop the harness.
_exit, _monotonic = os._exit, time.monotonic


class _SandboxTimeout(BaseException):
    """Raised by the interval timers inside a test; not an Exception, so ``except Exception`` misses it."""


class _TimerState:
    armed = False


def _on_timer(signum, frame):
    if _TimerState.armed:
        _TimerState.armed = False
        raise _SandboxTimeout()


def _type_name(name):
    """An exception type name made safe for the line protocol (a class may be given any name)."""
    cleaned = "".join(ch if ch.isalnum() or ch in "_.|" else "_" for ch in str(name))
    return cleaned or "_"


def _classify(exc):
    """The study's taxonomy: a failed assert written in the test is FAIL, anything else is ERROR."""
    if isinstance(exc, _SandboxTimeout):
        return "TIMEOUT"
    if isinstance(exc, _DidNotRaise):  # noqa: F821 - defined by the pytest shim source
        return "FAIL:" + _type_name(exc.expected)
    if isinstance(exc, AssertionError):
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        return "FAIL" if tb is not None and tb.tb_frame.f_code.co_filename == "<test>" else "ERROR:AssertionError"
    return "ERROR:" + _type_name(type(exc).__name__)


def _arm(cpu_s, wall_s):
    """Start the test's CPU and wall timers (replacing what is left of the last test's)."""
    signal.setitimer(signal.ITIMER_PROF, cpu_s)
    signal.setitimer(signal.ITIMER_REAL, max(wall_s, 0.001))
    _TimerState.armed = True


def _disarm():
    """Stop timers from raising; they are not stopped (two system calls saved per test): one that
    fires between tests finds them disarmed, and the next test's ``_arm`` replaces them."""
    _TimerState.armed = False


class _Board:
    """Shared memory (an anonymous MAP_SHARED mapping made before fork) where a child reports progress.

    Layout: the running test's index and the count of finished tests (int32 each), the running
    test's start time (float64, CLOCK_MONOTONIC, shared by all processes), a set-up error text,
    then one NUL-padded outcome slot per test. One board serves every suite of a worker (``reset``
    between children); the server reads it only when the child exits or a deadline passes, so a
    suite costs it one wake-up instead of two per test.
    """

    _HEAD, _ERROR, _SLOT = 32, 1024, 256

    def __init__(self, capacity):
        self.capacity = capacity
        self.mem = mmap.mmap(-1, self._HEAD + self._ERROR + self._SLOT * max(capacity, 1))

    def reset(self, start):
        """Before a child runs tests[start:]: nothing running, ``start`` finished, no set-up error."""
        struct.pack_into("=iidi", self.mem, 0, -1, start, 0.0, 0)

    # child side
    def begin(self, index, now):
        struct.pack_into("=d", self.mem, 8, now)
        struct.pack_into("=i", self.mem, 0, index)

    def finish(self, index, outcome):
        data = outcome.encode("ascii", "replace")[: self._SLOT - 1]
        offset = self._HEAD + self._ERROR + self._SLOT * index
        self.mem[offset : offset + len(data) + 1] = data + b"\0"
        struct.pack_into("=i", self.mem, 4, index + 1)

    def fail_setup(self, message):
        data = message.encode("utf-8", "replace")[: self._ERROR - 1]
        self.mem[self._HEAD : self._HEAD + len(data)] = data
        struct.pack_into("=i", self.mem, 16, len(data))

    # server side
    def state(self):
        """(running test index or None, its start time, number of finished tests)."""
        while True:
            index, done, started_at = struct.unpack_from("=iid", self.mem, 0)
            if struct.unpack_from("=i", self.mem, 0)[0] == index:  # not torn by a concurrent begin()
                return (index if index >= done else None), started_at, done

    def outcome(self, index):
        offset = self._HEAD + self._ERROR + self._SLOT * index
        raw = self.mem[offset : offset + self._SLOT].split(b"\0", 1)[0].decode("ascii", "replace")
        return raw if _OUTCOME.fullmatch(raw) else None

    def setup_error(self):
        length = struct.unpack_from("=i", self.mem, 16)[0]
        return self.mem[self._HEAD : self._HEAD + length].decode("utf-8", "replace") if length > 0 else None


def _run_tests(code_text, tests, start, board, limits, suite_deadline):
    """Run tests[start:] in fresh namespaces over the same code, posting each verdict as it lands.

    The timer signals already lead to ``_on_timer``: the server installed it (``sandbox_prepare_server``).
    """
    try:
        code = compile(code_text, "<code>", "exec")
        code_error = None
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, or ValueError for NUL bytes
        code, code_error = None, "ERROR:" + _type_name(type(exc).__name__)
    for i in range(start, len(tests)):
        now = _monotonic()
        board.begin(i, now)
        remaining = suite_deadline - now
        if remaining <= 0:
            outcome = "TIMEOUT"
        elif code is None:
            outcome = code_error
        else:
            namespace = {"__name__": "__main__", "pytest": pytest}  # noqa: F821 - the shim
            try:
                _arm(limits["test_cpu_s"], min(limits["test_wall_s"], remaining))
                try:
                    exec(code, namespace)
                    exec(compile(tests[i], "<test>", "exec"), namespace)
                finally:
                    _disarm()
                outcome = "pass"
            except BaseException as exc:  # noqa: BLE001 - every escape is a verdict
                _disarm()
                outcome = _classify(exc)
        board.finish(i, outcome)


def child_main(code_text, tests, start, board, config, plan, suite_deadline):
    """Entry point of a freshly forked child: confine, run tests[start:], exit. Never returns."""
    try:
        sandbox_confine_child(plan, config["limits"])
    except BaseException as exc:  # noqa: BLE001 - reported as an infrastructure failure
        board.fail_setup(f"sandbox set-up failed: {type(exc).__name__}: {exc}")
        _exit(70)
    try:
        _run_tests(code_text, tests, start, board, config["limits"], suite_deadline)
    finally:
        _exit(0)
