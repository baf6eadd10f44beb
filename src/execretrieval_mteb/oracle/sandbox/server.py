"""The fork server: one per worker; isolates itself once, then runs suites one at a time.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated (last) into the sandbox program (see ``program.py``). It uses the names defined by
the sources placed before it (``sandbox_*``, ``_Launcher``, ``_on_timer``, the pytest shim).

Protocol with the host: one JSON line per request on stdin (``{"code", "tests"}``), one JSON line
per reply on stdout (``{"outcomes": [...]}`` or ``{"infra_error": "..."}``); the first reply line
is a hello (``{"hello": {...}}``) naming the active protections.

Per suite the server has its launcher (``launcher.py``) fork one child and watches it through the
progress board and a pidfd. When the child dies or overruns mid-test, the server records that
test's verdict and has a fresh child run the rest, so a crash or hang costs one test, not the
suite.
"""

import gc
import json
import os
import select
import signal
import stat
import sys
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .child import _on_timer
    from .launcher import _Launcher
    from .isolation import sandbox_child_plan, sandbox_isolate_server, sandbox_prepare_server
except ImportError:
    pass

_WARM_IMPORTS = (
    "math", "collections", "heapq", "bisect", "itertools", "functools", "operator", "re", "string",
    "datetime", "calendar", "fractions", "json", "copy",
)
"""Imported once by the server so that each forked child finds them loaded (the stdlib the tasks use).
A short list: a bigger server makes every fork dearer. Not ``threading`` nor anything importing
``random``: their at-fork handlers would run in every child."""
_RECHECK_S = 0.02  # how often the server looks at a child that is between tests
_KILL_GRACE_S = 0.5  # after a test's wall budget, the in-child timer gets this long to report TIMEOUT itself
_SETUP_BUDGET_S = 5.0  # a child that has not started its first test by then is an infrastructure failure
_MIN_BOARD_TESTS = 256  # the board is sized for this many tests per suite, and grown when a suite has more


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
    """One child running tests[start:], forked by the launcher; watched through the board and the status pipe."""

    def __init__(self, launcher, code_text, tests, start, suite_deadline):
        self.launcher, self.board, self.start = launcher, launcher.board, start
        self.forked_at = time.monotonic()
        launcher.spawn(code_text, tests, start, suite_deadline)
        self.status, self.current, self.any_started = None, None, False

    def watch(self, limits, suite_deadline):
        """Wait until the child exits or overruns; returns None, "test", "suite" or "setup" (why it was killed)."""
        poller = select.poll()
        poller.register(self.launcher.statuses, select.POLLIN)
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
                break  # the launcher has reaped the child
        pid = self.launcher.child_pid()
        # Its group, for anything left in it; when it overran, also the child itself, should it
        # have left the group.
        for kill in (os.killpg, os.kill) if killed_for is not None else (os.killpg,):
            if pid > 0:
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.status = self.launcher.child_status()
        self.current, _, done = self.board.state()
        self.any_started = self.current is not None or done > self.start
        return killed_for

    def collect(self, outcomes):
        """Copy the verdicts the child posted into ``outcomes``."""
        _, _, done = self.board.state()
        for i in range(self.start, min(done, len(outcomes))):
            outcomes[i] = self.board.outcome(i)


def _run_suite(launcher, code_text, tests, limits):
    """Outcome strings for every test, or raises RuntimeError for an infrastructure failure."""
    n = len(tests)
    outcomes = [None] * n
    suite_deadline = time.monotonic() + limits["suite_wall_s"]
    start = 0
    while start < n and time.monotonic() < suite_deadline:
        child = _Child(launcher, code_text, tests, start, suite_deadline)
        killed_for = child.watch(limits, suite_deadline)
        child.collect(outcomes)
        setup_error = launcher.board.setup_error()
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
    """Fork-server main loop: isolate once, start the launcher, then one child per request until stdin closes."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.dont_write_bytecode = True
    sys.argv = ["-c"]  # what code under `python -c` (the study's runner) sees
    sys.modules["pytest"] = pytest  # noqa: F821 - `import pytest` in a test gets the shim
    if config.get("cpu") is not None:
        try:
            os.sched_setaffinity(0, {config["cpu"]})  # inherited by the launcher and every child
        except OSError:
            pass  # the CPU went away: run unpinned
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
    launcher = None
    for line in requests:
        request = json.loads(line)
        tests = request["tests"]
        try:
            _fresh_scratch(scratch_dir, config)
            if launcher is not None and (launcher.board.capacity < len(tests) or not launcher.alive()):
                launcher.close()
                launcher = None
            if launcher is None:
                launcher = _Launcher(max(_MIN_BOARD_TESTS, len(tests)), config, plan, scratch_dir)
            reply = {"outcomes": _run_suite(launcher, request["code"], tests, config["limits"])}
        except Exception as exc:  # noqa: BLE001 - reported to the host, never cached
            reply = {"infra_error": f"{type(exc).__name__}: {exc}"}
            if launcher is not None:  # start afresh: the launcher may be what failed
                launcher.close()
                launcher = None
        replies.write((json.dumps(reply) + "\n").encode())
        replies.flush()


def _fresh_scratch(scratch_dir, config):
    """An empty scratch directory owned by the sandbox uid: reused, emptied after whatever ran before."""
    try:
        st = os.lstat(scratch_dir)
    except FileNotFoundError:
        os.mkdir(scratch_dir, 0o700)
        st = os.lstat(scratch_dir)
    if not stat.S_ISDIR(st.st_mode):  # a file or a symlink in its place
        os.unlink(scratch_dir)
        os.mkdir(scratch_dir, 0o700)
        st = os.lstat(scratch_dir)
    for entry in os.scandir(scratch_dir):
        if entry.is_dir(follow_symlinks=False):
            import shutil  # only here: it loads the bz2 and lzma libraries, which would make every fork dearer

            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    owner = (config["uid"], config["gid"]) if config["drop_uid"] else (os.getuid(), os.getgid())
    if (st.st_uid, st.st_gid) != owner:
        os.chown(scratch_dir, *owner)
    if st.st_mode & 0o7777 != 0o700:
        os.chmod(scratch_dir, 0o700)
