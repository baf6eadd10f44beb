"""What runs inside each suite's sandboxed child: the test runner and the board it shares with the server.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``) and run by a world-readable
interpreter that may not be able to read this package. It uses the ``sandbox_*`` functions and
the pytest shim (``pytest``, ``_DidNotRaise``) defined by the sources placed before it.

A child (forked by the launcher, ``launcher.py``) confines itself, reads the suite from the
board, runs the tests the server listed there, in order, and posts the running test, each
verdict and the CPU time each test used on the board, which the fork server watches
(``server.py``).
"""

import ctypes
import marshal
import os
import re
import signal
import struct
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .isolation import sandbox_confine_child
    from .syscalls import sys_check, sys_libc, sys_map_shared, sys_unmap
except ImportError:
    pass

_OUTCOME = re.compile(r"pass|TIMEOUT|FAIL(:[\w.|]+)?|ERROR:[\w.|]+")


# Captured before any untrusted code runs, so that a test rebinding os._exit/time.* cannot stop the harness.
_exit, _monotonic, _cpu_time, _sched_yield = os._exit, time.monotonic, time.process_time, os.sched_yield


class _SandboxTimeout(BaseException):
    """Raised by the interval timers inside a test; not an Exception, so ``except Exception`` misses it."""


def _cpu_now():
    """This process's CPU seconds, exact. While a process CPU timer is armed (the early alarm,
    RLIMIT_CPU) the kernel serves the process clock from a sum it updates only at scheduler ticks
    and switches (measured: reads up to 4 ms behind); a yield is a switch, to this same process
    when no other waits for the CPU, and costs about half a microsecond."""
    _sched_yield()
    return _cpu_time()


_EARLY_ALARM_S = 0.03  # how far ahead of the CPU budget's end ITIMER_PROF rings (see _arm)


class _TimerState:
    armed = False
    cpu_deadline = 0.0  # the process CPU clock at which the running test's CPU budget ends
    wall_deadline = 0.0  # the monotonic time at which its wall budget ends


def _on_timer(signum, frame):
    """Raise ``_SandboxTimeout`` in the running test once its CPU or wall budget is spent; until
    then, set the wall timer to ring again when the rest of the CPU budget could at the earliest
    be spent (time spent waiting for a CPU does not count)."""
    if not _TimerState.armed:
        return
    wall_left = _TimerState.wall_deadline - _monotonic()
    if wall_left > 0:
        cpu_left = _TimerState.cpu_deadline - _cpu_now()
        if cpu_left > 0:
            signal.setitimer(signal.ITIMER_REAL, min(cpu_left, wall_left))
            return
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


def _arm(cpu_s, now, wall_s):
    """Start the test's budgets of ``cpu_s`` CPU seconds and ``wall_s`` wall seconds (replacing
    what is left of the last test's timers); returns the process CPU clock at the start.

    Two interval timers, no clock of their own: the wall timer (exact) rings when the CPU budget
    could at the earliest be spent, which for a process on one CPU is never late; ITIMER_PROF
    (process CPU time, but counted in whole scheduler ticks, so a little off either way) rings
    ``_EARLY_ALARM_S`` early, for threads running on several CPUs at once. Either way
    ``_on_timer`` reads the exact clock before it raises.
    """
    started = _cpu_now()
    _TimerState.cpu_deadline, _TimerState.wall_deadline = started + cpu_s, now + wall_s
    signal.setitimer(signal.ITIMER_PROF, max(cpu_s - min(_EARLY_ALARM_S, cpu_s / 4), 0.001))
    signal.setitimer(signal.ITIMER_REAL, max(min(cpu_s, wall_s), 0.001))
    _TimerState.armed = True
    return started


def _disarm():
    """Stop timers from raising; they are not stopped (two system calls saved per test): one that
    fires between tests finds them disarmed, and the next test's ``_arm`` replaces them."""
    _TimerState.armed = False


class _Board:
    """Shared memory between a worker's processes: two memfds the server makes and maps, and hands
    to its launcher, which maps them before it forks any child.

    Before each suite the server clears every result slot and the set-up error; before each child
    it writes what it is to run, marshalled in one piece, into the second memfd (the suite's code
    and tests, which tests, from which position, with which wall budgets), zeroing what is left of
    a longer earlier one. The child reads that and reports progress in the first. The second is
    sealed against new writable mappings once the server has mapped it (``F_SEAL_FUTURE_WRITE``):
    the launcher and the children map it read-only and cannot make it writable, so no child can
    leave anything there for a later suite. The launcher never reads the suite, so no child can
    find an earlier suite in memory it inherited: the board holds only the current suite.

    Layout of the first: a 64-byte head (running test, finished run entries, running test's start
    time and the child's CPU time then, set-up error length, length of what the child is to run),
    a set-up error text, one slot per test (CPU seconds used, then the NUL-padded outcome). The
    server reads it only when the child exits or a deadline passes, so a suite costs it one
    wake-up. Every page of both is written by the server when it makes them, so the memory is
    the server's, never charged to the worker's cgroup by a child's first write.
    """

    _HEAD, _ERROR, _SLOT, _SLOT_TEXT = 64, 1024, 256, 8
    _RUNNING = struct.Struct("=iidd")  # current, position, started_at, cpu_at_begin
    _NO_CPU = struct.pack("=d", 0.0)
    _F_ADD_SEALS, _F_SEAL_FUTURE_WRITE, _MFD_ALLOW_SEALING = 1033, 0x10, 0x2

    def __init__(self, capacity, payload_capacity, fds=None):
        """A new board (``fds`` None: the server's; ``()``: private, for the launcher's warm-up) or the
        one behind the memfds ``fds`` (the launcher's view: the suite's part read-only)."""
        self.capacity, self.payload_capacity = capacity, payload_capacity
        self.size = self._HEAD + self._ERROR + self._SLOT * capacity
        if fds is None:
            fds = (os.memfd_create("board", os.MFD_CLOEXEC),
                   os.memfd_create("suite", os.MFD_CLOEXEC | self._MFD_ALLOW_SEALING))
            os.ftruncate(fds[0], self.size)
            os.ftruncate(fds[1], payload_capacity)
            self.mem, self.payload = sys_map_shared(fds[0], self.size), sys_map_shared(fds[1], payload_capacity)
            ctypes.memset(ctypes.addressof(self.mem), 0, self.size)  # every page the server's (see above)
            ctypes.memset(ctypes.addressof(self.payload), 0, payload_capacity)
            sys_check(sys_libc.fcntl(fds[1], self._F_ADD_SEALS, self._F_SEAL_FUTURE_WRITE))
        elif not fds:
            self.mem, self.payload = sys_map_shared(-1, self.size), sys_map_shared(-1, payload_capacity)
        else:
            self.mem, self.payload = sys_map_shared(fds[0], self.size), sys_map_shared(fds[1], payload_capacity, True)
        self.fds = fds
        self._payload_len = 0
        self._suite = None
        self._slots_address = ctypes.addressof(self.mem) + self._HEAD

    # server side
    def load(self, code_text, tests):
        """The suite the next children run (written with each ``plan``); every result slot and the
        set-up error cleared, so that nothing of an earlier suite is left to read."""
        self._suite = (code_text, tests)
        ctypes.memset(self._slots_address, 0, self.size - self._HEAD)  # one call (a slice assignment loops per byte)

    def plan(self, run, position, suite_deadline, test_wall_s):
        """Before a child: run tests ``run[position:]`` with these budgets; nothing running, no set-up error."""
        payload = marshal.dumps(self._suite + (tuple(run), position, suite_deadline, test_wall_s))
        self.payload[: len(payload)] = payload
        if self._payload_len > len(payload):
            self.payload[len(payload) : self._payload_len] = bytes(self._payload_len - len(payload))
        self._payload_len = len(payload)
        self._RUNNING.pack_into(self.mem, 0, -1, position, 0.0, 0.0)
        struct.pack_into("=ii", self.mem, 24, 0, len(payload))

    def state(self):
        """(running test index or None, its start time, the child's CPU seconds then, finished run entries)."""
        while True:
            index, position, started_at, cpu_at_begin = self._RUNNING.unpack_from(self.mem, 0)
            if struct.unpack_from("=i", self.mem, 0)[0] == index:  # not torn by a concurrent begin()
                return (index if index >= 0 else None), started_at, cpu_at_begin, position

    def result(self, index):
        """(outcome or None if malformed, CPU seconds) posted for test ``index``."""
        offset = self._HEAD + self._ERROR + self._SLOT * index
        cpu_s = struct.unpack_from("=d", self.mem, offset)[0]
        raw = self.mem[offset + self._SLOT_TEXT : offset + self._SLOT].split(b"\0", 1)[0].decode("ascii", "replace")
        return (raw if _OUTCOME.fullmatch(raw) else None), cpu_s

    def setup_error(self):
        length = struct.unpack_from("=i", self.mem, 24)[0]
        return self.mem[self._HEAD : self._HEAD + length].decode("utf-8", "replace") if length > 0 else None

    # child side
    def suite(self):
        """(code text, tests, run list, position, suite deadline, wall seconds per test), in one read."""
        length = struct.unpack_from("=i", self.mem, 28)[0]
        return marshal.loads(self.payload[:length])

    def begin(self, index, position, now, cpu_now):
        struct.pack_into("=dd", self.mem, 8, now, cpu_now)
        struct.pack_into("=ii", self.mem, 0, index, position)

    def finish(self, index, position, outcome):
        """Post a verdict; its CPU seconds follow (``cpu``) once the next test arms the timer."""
        offset = self._HEAD + self._ERROR + self._SLOT * index
        data = outcome.encode("ascii", "replace")[: self._SLOT - self._SLOT_TEXT - 1]
        start = offset + self._SLOT_TEXT
        self.mem[offset : start + len(data) + 1] = self._NO_CPU + data + b"\0"
        struct.pack_into("=ii", self.mem, 0, -1, position + 1)

    def cpu(self, index, cpu_s):
        struct.pack_into("=d", self.mem, self._HEAD + self._ERROR + self._SLOT * index, cpu_s)

    def fail_setup(self, message):
        data = message.encode("utf-8", "replace")[: self._ERROR - 1]
        self.mem[self._HEAD : self._HEAD + len(data)] = data
        struct.pack_into("=i", self.mem, 24, len(data))


def _run_tests(board, cpu_s):
    """Run the listed tests in fresh namespaces over the same code, posting each verdict as it lands.

    A test's CPU time is the process CPU clock's advance from its start to the next test's (or to
    the end): one clock read per test. The timer signals already lead to ``_on_timer``: the
    launcher installed it (``sandbox_prepare_launcher``). ``cpu_s``: each test's CPU budget.
    """
    code_text, tests, run, position, suite_deadline, test_wall_s = board.suite()
    try:
        code = compile(code_text, "<code>", "exec")
        code_error = None
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, or ValueError for NUL bytes
        code, code_error = None, "ERROR:" + _type_name(type(exc).__name__)
    cpu_at_begin = _cpu_time()  # replaced by each armed test's exact start; until then only tests running no code
    timed = None  # the last test the timers were armed for
    for position in range(position, len(run)):
        i = run[position]
        now = _monotonic()
        remaining = suite_deadline - now
        if remaining <= 0 or code is None:
            board.begin(i, position, now, cpu_at_begin)
            outcome = "TIMEOUT" if remaining <= 0 else code_error
        else:
            namespace = {"__name__": "__main__", "pytest": pytest}  # noqa: F821 - the shim
            try:
                started = _arm(cpu_s, now, min(test_wall_s, remaining))
                if timed is not None:
                    board.cpu(timed, started - cpu_at_begin)
                cpu_at_begin = started
                board.begin(i, position, now, cpu_at_begin)
                timed = i
                try:
                    exec(code, namespace)
                    exec(compile(tests[i], "<test>", "exec"), namespace)
                finally:
                    _disarm()
                outcome = "pass"
            except BaseException as exc:  # noqa: BLE001 - every escape is a verdict
                _disarm()
                outcome = _classify(exc)
        board.finish(i, position, outcome)
    if timed is not None:
        board.cpu(timed, _cpu_now() - cpu_at_begin)


_WARM_UP_CODE = (
    "def scaled(values, factor):\n"
    "    if factor < 0:\n"
    "        raise ValueError('factor must be >= 0')\n"
    "    return [v * factor for v in values]\n"
)
_WARM_UP = (  # (test, the verdict the runner must give): every path of the runner and the shim
    ("assert scaled([1, 2], 3) == [3, 6]", "pass"),
    ("assert scaled([1, 2], 3) == [3, 7]", "FAIL"),
    ("assert scaled([1], -1) == []", "ERROR:ValueError"),
    ("with pytest.raises(ValueError):\n    scaled([1], -1)", "pass"),
    ("with pytest.raises(ValueError):\n    scaled([1], 1)", "FAIL:ValueError"),
    ("assert scaled([0.1], 3) == [pytest.approx(0.3)]", "pass"),
)
_WARM_UP_ROUNDS = 10  # past the interpreter's warm-up counts (a function is specialised after 8 calls)


def child_warm_up(cpu_s):
    """Run a built-in suite through the test runner, in the launcher, before its first fork.

    CPython 3.11 specialises bytecode in place: the first calls of a function write into its code
    object (a warm-up count, then the specialised instructions and their caches). A runner run
    for the first time in every child made each child copy the pages of those code objects
    (measured: about 50 of a child's 340 page faults). Run here first, the runner's code is
    specialised once, in the memory every child inherits (measured: 7 % more suites/s). The
    suite is ours, so the launcher still holds no suite's code; its own board is unmapped
    afterwards. The verdicts are checked too: a runner that misjudges this suite is a set-up
    failure (``OSError``).
    """
    board = _Board(len(_WARM_UP), 1 << 12, ())
    tests = tuple(test for test, _ in _WARM_UP)
    try:
        for _ in range(_WARM_UP_ROUNDS):
            board.load(_WARM_UP_CODE, tests)
            board.plan(range(len(tests)), 0, _monotonic() + 60.0, 60.0)
            _run_tests(board, cpu_s)
            verdicts = [board.result(i)[0] for i in range(len(tests))]
            if verdicts != [verdict for _, verdict in _WARM_UP]:
                raise OSError(0, f"the test runner misjudged its warm-up suite: {verdicts}")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys_unmap(board.mem)
        sys_unmap(board.payload)


def child_main(board, limits, plan):
    """Entry point of a freshly forked child: confine, run the listed tests, exit. Never returns."""
    try:
        sandbox_confine_child(plan)
    except BaseException as exc:  # noqa: BLE001 - reported as an infrastructure failure
        board.fail_setup(f"sandbox set-up failed: {type(exc).__name__}: {exc}")
        _exit(70)
    try:
        _run_tests(board, limits["test_cpu_s"])
    finally:
        _exit(0)
