"""The fork server and the test runner that execute inside the sandbox.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``) and run by a world-readable
interpreter that may not be able to read this package. It uses the ``sandbox_*`` functions and
the pytest shim (``pytest``, ``_DidNotRaise``) defined by the sources placed before it.

Protocol with the host: one JSON line per request on stdin (``{"code", "tests"}``), one JSON line
per reply on stdout (``{"outcomes": [...]}`` or ``{"infra_error": "..."}``); the first reply line
is a hello (``{"hello": {...}}``) naming the active protections.

Per suite the server forks one child, which confines itself and runs the tests in order,
posting the running test and each verdict on a shared-memory board (``_Board``). When the child dies
or overruns mid-test, the server records that test's verdict and forks a fresh child for the rest,
so a crash or hang costs one test, not the suite.
"""

import gc
import json
import mmap
import os
import re
import select
import shutil
import signal
import struct
import sys
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .sandbox import sandbox_child_plan, sandbox_confine_child, sandbox_isolate_server, sandbox_prepare_server
except ImportError:
    pass

_WARM_IMPORTS = (
    "math", "collections", "heapq", "bisect", "itertools", "functools", "operator", "re", "string",
    "datetime", "calendar", "fractions", "json", "copy",
)
"""Imported once by the server so that each forked child finds them loaded (the stdlib the tasks use).
A short list: a bigger server makes every fork dearer. Not ``threading`` nor anything importing
``random``: their at-fork handlers would run in every child."""
_OUTCOME = re.compile(r"pass|TIMEOUT|FAIL(:[\w.|]+)?|ERROR:[\w.|]+")
_RECHECK_S = 0.02  # how often the server looks at a child that is between tests
_KILL_GRACE_S = 0.5  # after a test's wall budget, the in-child timer gets this long to report TIMEOUT itself
_SETUP_BUDGET_S = 5.0  # a child that has not started its first test by then is an infrastructure failure


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
    _TimerState.armed = True
    signal.setitimer(signal.ITIMER_PROF, cpu_s)
    signal.setitimer(signal.ITIMER_REAL, max(wall_s, 0.001))


def _disarm():
    _TimerState.armed = False
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)


class _Board:
    """Shared memory (an anonymous MAP_SHARED mapping made before fork) where a child reports progress.

    Layout: the running test's index and the count of finished tests (int32 each), the running
    test's start time (float64, CLOCK_MONOTONIC, shared by all processes), a set-up error text,
    then one NUL-padded outcome slot per test. The server reads it only when the child exits or a
    deadline passes, so a suite costs it one wake-up instead of two per test.
    """

    _HEAD, _ERROR, _SLOT = 32, 1024, 256

    def __init__(self, n_tests, start):
        self.mem = mmap.mmap(-1, self._HEAD + self._ERROR + self._SLOT * max(n_tests, 1))
        struct.pack_into("=iid", self.mem, 0, -1, start, 0.0)

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


def _child(code_text, tests, start, board, config, plan, scratch_dir, suite_deadline):
    try:
        sandbox_confine_child(plan, config["limits"], config["uid"], config["gid"])
    except BaseException as exc:  # noqa: BLE001 - reported as an infrastructure failure
        board.fail_setup(f"sandbox set-up failed: {type(exc).__name__}: {exc}")
        _exit(70)
    try:
        _run_tests(code_text, tests, start, board, config["limits"], suite_deadline)
    finally:
        _exit(0)


def _death_verdict(status):
    """Verdict for a test during which the child ended without reporting."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "TIMEOUT"
        try:
            return "ERROR:" + signal.Signals(sig).name
        except ValueError:
            return f"ERROR:SIG{sig}"
    return "ERROR:ProcessExited"


class _Child:
    """One forked child running tests[start:], watched through its progress board and a pidfd."""

    def __init__(self, code_text, tests, start, config, plan, scratch_dir, suite_deadline):
        self.board = _Board(len(tests), start)
        self.forked_at = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                _child(code_text, tests, start, self.board, config, plan, scratch_dir, suite_deadline)
            finally:
                _exit(0)  # never fall through into the server's code
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass  # the child already did it (or is gone)
        self.pid, self.pidfd, self.start = pid, os.pidfd_open(pid), start
        self.status, self.current, self.any_started = None, None, False

    def watch(self, limits, suite_deadline):
        """Wait until the child exits or overruns; returns None, "test", "suite" or "setup" (why it was killed)."""
        poller = select.poll()
        poller.register(self.pidfd, select.POLLIN)
        killed_for = None
        while True:
            current, started_at, done = self.board.state()
            self.any_started = current is not None or done > self.start
            if not self.any_started:
                deadline, reason = min(suite_deadline, self.forked_at + _SETUP_BUDGET_S), "setup"
            elif current is None:
                deadline, reason = suite_deadline + _KILL_GRACE_S, "suite"
            else:
                test_deadline = started_at + limits["test_wall_s"]
                deadline = min(suite_deadline, test_deadline) + _KILL_GRACE_S
                reason = "test" if test_deadline < suite_deadline else "suite"
            now = time.monotonic()
            if now >= deadline:
                killed_for = "suite" if now >= suite_deadline else reason
                break
            # A running test is watched until its deadline; before the first test or between tests
            # the state changes on its own, so look again soon.
            wake = deadline if current is not None else min(deadline, now + _RECHECK_S)
            if poller.poll(max(1, int((wake - now) * 1000) + 1)):
                _, self.status = os.waitpid(self.pid, 0)
                break
        for kill in (os.killpg, os.kill):  # the group, and the child itself should it have left the group
            try:
                kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        if self.status is None:
            _, self.status = os.waitpid(self.pid, 0)
        os.close(self.pidfd)
        self.current, _, done = self.board.state()
        self.any_started = self.current is not None or done > self.start
        return killed_for

    def collect(self, outcomes):
        """Copy the verdicts the child posted into ``outcomes``."""
        _, _, done = self.board.state()
        for i in range(self.start, min(done, len(outcomes))):
            outcomes[i] = self.board.outcome(i)


def _run_suite(code_text, tests, config, plan, scratch_dir):
    """Outcome strings for every test, or raises RuntimeError for an infrastructure failure."""
    limits = config["limits"]
    n = len(tests)
    outcomes = [None] * n
    suite_deadline = time.monotonic() + limits["suite_wall_s"]
    start = 0
    while start < n and time.monotonic() < suite_deadline:
        child = _Child(code_text, tests, start, config, plan, scratch_dir, suite_deadline)
        killed_for = child.watch(limits, suite_deadline)
        child.collect(outcomes)
        setup_error = child.board.setup_error()
        child.board.mem.close()
        if setup_error is not None:
            raise RuntimeError(setup_error)
        if killed_for == "setup" or (not child.any_started and killed_for != "suite"):
            raise RuntimeError(f"sandboxed child ended before running test {start} (wait status {child.status})")
        if child.current is not None:
            outcomes[child.current] = "TIMEOUT" if killed_for in ("test", "suite") else _death_verdict(child.status)
        if killed_for == "suite":
            break
        todo = [i for i in range(start, n) if outcomes[i] is None]
        start = todo[0] if todo else n
    return [o if o is not None else "TIMEOUT" for o in outcomes]


def serve(config):
    """Fork-server main loop: isolate once, then one fork per request until stdin closes."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.dont_write_bytecode = True
    sys.argv = ["-c"]  # what code under `python -c` (the study's runner) sees
    sys.modules["pytest"] = pytest  # noqa: F821 - `import pytest` in a test gets the shim
    scratch_root = config["scratch_root"]
    active, missing = sandbox_isolate_server(scratch_root, config["limits"]["scratch_mb"], config["disabled"])
    os.chdir("/")
    read_paths = list(config["read_paths"]) + [p for p in sys.path if p and os.path.exists(p)]
    read_paths.append(os.path.dirname(os.path.realpath(sys.executable)))
    plan, child_active, child_missing = sandbox_child_plan(sorted(set(read_paths)), scratch_root, config["drop_uid"], config["disabled"])
    config = dict(config, drop_uid=plan["drop_uid"])
    active = sorted(set(active) | set(child_active))
    missing.update(child_missing)
    for name in active:
        missing.pop(name, None)
    hello = {"protections": active, "missing": missing, "python": sys.version.split()[0], "pid": os.getpid()}
    replies.write((json.dumps({"hello": hello}) + "\n").encode())
    replies.flush()
    for name in _WARM_IMPORTS:
        try:
            __import__(name)
        except ImportError:
            pass
    scratch_dir = os.path.join(scratch_root, "suite")
    sandbox_prepare_server(config["limits"], scratch_dir, _on_timer)
    gc.freeze()  # keep the server's objects out of the children's collections: fewer copy-on-write faults
    for line in requests:
        request = json.loads(line)
        try:
            _fresh_scratch(scratch_dir, config)
            os.chdir(scratch_dir)  # inherited by the child
            reply = {"outcomes": _run_suite(request["code"], request["tests"], config, plan, scratch_dir)}
        except Exception as exc:  # noqa: BLE001 - reported to the host, never cached
            reply = {"infra_error": f"{type(exc).__name__}: {exc}"}
        replies.write((json.dumps(reply) + "\n").encode())
        replies.flush()


def _fresh_scratch(scratch_dir, config):
    """An empty scratch directory owned by the sandbox uid: reused, emptied after whatever ran before."""
    try:
        st = os.lstat(scratch_dir)
    except FileNotFoundError:
        os.mkdir(scratch_dir, 0o700)
        st = os.lstat(scratch_dir)
    if not os.path.isdir(scratch_dir) or os.path.islink(scratch_dir):
        os.unlink(scratch_dir)
        os.mkdir(scratch_dir, 0o700)
        st = os.lstat(scratch_dir)
    for entry in os.scandir(scratch_dir):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    owner = (config["uid"], config["gid"]) if config["drop_uid"] else (os.getuid(), os.getgid())
    if (st.st_uid, st.st_gid) != owner:
        os.chown(scratch_dir, *owner)
    if st.st_mode & 0o7777 != 0o700:
        os.chmod(scratch_dir, 0o700)
