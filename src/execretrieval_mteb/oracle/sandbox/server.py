"""The fork server: one per worker; isolates itself once, then runs suites one at a time.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated (last) into the sandbox program (see ``program.py``). It uses the names defined by
the sources placed before it (``sandbox_*``, ``SandboxScratch``, ``_Board``, ``_Launcher``,
``_Anomaly``). It runs no test itself: its launcher, a fresh interpreter, forks the children.

Protocol with the host: one JSON line per request on stdin (``{"code", "tests", "more"}``), one JSON
line per reply on stdout, sent when the request did not say ``more`` (the host sends suites in
batches and wakes once per batch): ``{"outcomes": [...], "cpu_s": [...]}``, or ``{"infra_error": "...", "kind":
"...", "retire": true}`` after an anomaly, when the server exits and the host starts a fresh one
(its launcher can only be replaced clean by a new server: see ``launcher.py``). A verdict reply
may say ``"retire": true`` too, with why (``"renew"``): the suite left the worker holding more
memory or processes than when fresh (checked after every suite, with the scratch space: ``_renew``),
so the next suite needs a fresh worker; that suite's own verdict stands. The first reply line is
a hello (``{"hello": {...}}``) naming the active protections.

Per suite the server has its launcher fork a child and watches it through the board and the
launcher's answers. When the child dies or overruns mid-test, the server records that test's
verdict and has a fresh child run the rest, so a crash or hang costs one test, not the suite.

A TIMEOUT must not depend on how busy the machine is. A test stopped after using its whole CPU
budget is a TIMEOUT on any machine; one stopped by a wall-clock deadline while under its CPU
budget (it slept, or waited for a CPU on a loaded machine) is run again, with the other such tests
of the suite, by a fresh child with ``timeout_confirm_factor`` times the wall budgets. Only what
times out again is TIMEOUT.
"""

import json
import os
import signal
import sys
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .child import _Board
    from .isolation import (
        _DISABLED, SandboxScratch, sandbox_child_plan, sandbox_isolate_server, sandbox_seccomp_programs, sandbox_worker_uid,
    )
    from .launcher import _Anomaly, _Launcher
except ImportError:
    pass

_RECHECK_S = 0.02  # how often the server looks at a child that is between tests
_KILL_GRACE_S = 0.5  # after a test's wall budget, the in-child timer gets this long to report TIMEOUT itself
_SETUP_BUDGET_S = 5.0  # a child that has not started its first test by then is an infrastructure failure
_REAP_BUDGET_S = 5.0  # after a kill, the launcher has this long to report the child's end
_CPU_BACKED = 0.99  # a test that used this share of its CPU budget timed out on CPU (not re-run)
_CPU_BACKSTOP_S = 0.1  # a test this far past its CPU budget (its timers silenced) is killed by the server


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


def _watch(launcher, board, start, test_wall_s, suite_deadline, test_cpu_s):
    """Wait until the child (asked to start at run entry ``start``) ends or overruns.

    Returns (why it was killed: None, "test", "cpu", "suite" or "setup"; its wait status; its CPU seconds).
    A test still running when its CPU budget could be spent is looked at: past the budget by
    ``_CPU_BACKSTOP_S`` (its timer signals blocked or ignored) it is killed, so that no test buys CPU
    beyond its budget (an unprivileged child running several tests cannot have a per-test hard RLIMIT_CPU:
    hard limits cannot be raised again for the next test).
    """
    forked_at = time.monotonic()
    killed_for = None
    while True:
        current, started_at, cpu_at_begin, position = board.state()
        cpu_check = None
        if current is None and position == start:  # not started yet
            deadline, reason = min(suite_deadline, forked_at + _SETUP_BUDGET_S), "setup"
        elif current is None:
            deadline, reason = suite_deadline + _KILL_GRACE_S, "suite"
        else:
            test_deadline = started_at + test_wall_s
            deadline = min(suite_deadline, test_deadline) + _KILL_GRACE_S
            reason = "test" if test_deadline < suite_deadline else "suite"
            cpu_check = started_at + test_cpu_s + _CPU_BACKSTOP_S
        now = time.monotonic()
        if now >= deadline:
            killed_for = "suite" if now >= suite_deadline else reason
            launcher.kill_child()
            break
        if cpu_check is not None and now >= cpu_check:
            used = launcher.child_cpu()
            if used is not None and used - cpu_at_begin >= test_cpu_s + _CPU_BACKSTOP_S and board.state()[0] == current:
                killed_for = "cpu"
                launcher.kill_child()
                break
            left = test_cpu_s + _CPU_BACKSTOP_S - (used - cpu_at_begin if used is not None else 0.0)
            cpu_check = now + max(left, _RECHECK_S)
        # A running test is watched until its deadline (or its CPU check); before the first test or
        # between tests the state changes on its own, so look again soon.
        wake = min(deadline, cpu_check) if current is not None else min(deadline, now + _RECHECK_S)
        if launcher.wait(wake):
            break  # the launcher has reaped the child
    status, cpu_s = launcher.child_end(time.monotonic() + _REAP_BUDGET_S)
    return killed_for, status, cpu_s


def _run_pass(launcher, board, run, test_wall_s, suite_wall_s, test_cpu_s):
    """Run tests ``run`` (indices, in order) in as many children as crashes and hangs need.

    Returns {index: (outcome, CPU seconds)} for the tests that got a verdict before the pass's
    suite deadline; raises _Anomaly for an infrastructure failure.
    """
    results = {}
    suite_deadline = time.monotonic() + suite_wall_s
    position = 0
    while position < len(run) and time.monotonic() < suite_deadline:
        board.plan(run, position, suite_deadline, test_wall_s)
        launcher.spawn()
        killed_for, status, child_cpu_s = _watch(launcher, board, position, test_wall_s, suite_deadline, test_cpu_s)
        current, _, cpu_at_begin, done = board.state()
        for p in range(position, done):
            outcome, cpu_s = board.result(run[p])
            results[run[p]] = (outcome if outcome is not None else "ERROR:MalformedVerdict", cpu_s)
        setup_error = board.setup_error()
        if setup_error is not None:
            raise _Anomaly("child_setup", setup_error)
        if killed_for == "setup" or (done == position and current is None and killed_for != "suite"):
            raise _Anomaly("child_setup", f"sandboxed child ended before running test {run[position]} (wait status {status})")
        if current is not None:
            verdict = "TIMEOUT" if killed_for in ("test", "cpu", "suite") else _death_verdict(status)
            results[current] = (verdict, max(0.0, child_cpu_s - cpu_at_begin))
            done += 1
        if killed_for == "suite":
            break
        position = done
    return results


class _WorkerCgroup:
    """The server's handle on its worker's cgroup (made by the host: ``cgroups.py``), opened before
    the server's root is replaced: the launcher is moved into it before its interpreter starts, and
    after each suite the server reads what the worker holds.

    Memory is read as the cgroup's charged total (``memory.usage_in_bytes``, v2 ``memory.current``:
    a counter the kernel keeps exact to a per-CPU batch, where ``memory.stat`` may lag by seconds).
    That total also grows with the page cache and kernel objects of ordinary work (modules read
    for the first time, directory entries), so the worker counts as fresh while it holds at most
    ``_MEMORY_SLACK`` more than after its start: less than the room the host leaves between the
    cgroup's limit and what a suite may use (``pool._cgroup_memory_bytes``), so that what is left
    can never bring a later suite to the limit. Processes are exact: the launcher alone.
    """

    _MEMORY_SLACK = 32 << 20

    def __init__(self, spec):
        directories = spec["directories"]
        flags = os.O_RDONLY | os.O_CLOEXEC
        self.procs = [os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
                      for d in sorted(set(directories.values()))]
        usage = "memory.usage_in_bytes" if spec["versions"]["memory"] == 1 else "memory.current"
        self.memory = os.open(os.path.join(directories["memory"], usage), flags)
        self.pids_current = os.open(os.path.join(directories["pids"], "pids.current"), flags)
        self.baseline = None
        self._parents = [(os.open(os.path.dirname(d), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC), os.path.basename(d))
                         for d in sorted(set(directories.values()))]

    def remove(self):
        """Remove the cgroup once the launcher is gone (the host does it too, should the server die
        first: whichever comes second finds nothing to do)."""
        for parent, name in self._parents:
            try:
                os.rmdir(name, dir_fd=parent)
            except OSError:
                pass

    def state(self):
        """(bytes charged to the worker, its processes)."""
        return int(os.pread(self.memory, 64, 0)), int(os.pread(self.pids_current, 64, 0))

    def not_fresh(self):
        """Why the worker is not as fresh as after its start (None when it is)."""
        memory, processes = self.state()
        if memory <= self.baseline[0] + self._MEMORY_SLACK and processes == self.baseline[1]:
            return None
        return (f"the worker holds {(memory - self.baseline[0]) >> 20} MiB more memory and "
                f"{processes - self.baseline[1]} more processes than when it started")


def _run_suite(launcher, board, request, limits, config):
    """(outcome strings, CPU seconds per test); a wall-clock TIMEOUT under the CPU budget is confirmed once."""
    tests = request["tests"]
    n = len(tests)
    board.load(request["code"], tests)
    cpu_s = limits["test_cpu_s"]
    results = _run_pass(launcher, board, list(range(n)), limits["test_wall_s"], limits["suite_wall_s"], cpu_s)
    unreached = ("TIMEOUT", 0.0)  # a test the suite deadline left unstarted
    unsure = [i for i in range(n) if results.get(i, unreached)[0] == "TIMEOUT"
              and results.get(i, unreached)[1] < _CPU_BACKED * limits["test_cpu_s"]]
    if unsure:
        factor = config["timeout_confirm_factor"]
        results.update(_run_pass(launcher, board, unsure, factor * limits["test_wall_s"], factor * limits["suite_wall_s"],
                                 cpu_s))
    # a test that used more than its CPU budget is TIMEOUT whatever it reported (its timers were silenced)
    outcomes = [results.get(i, unreached)[0] if results.get(i, unreached)[1] <= cpu_s else "TIMEOUT" for i in range(n)]
    cpu = [round(results.get(i, unreached)[1], 6) for i in range(n)]
    return outcomes, cpu


def _start(config):
    """Isolate, plan, say hello, start the launcher: everything before the first suite."""
    if config.get("cpu") is not None:
        try:
            os.sched_setaffinity(0, {config["cpu"]})  # inherited by the launcher and every child
        except OSError:
            pass  # the CPU went away: run unpinned
    scratch_root = config["scratch_root"]
    host_root = None  # the host's scratch root, when the host wants it removed as the server ends (see leave_host)
    if config.get("remove_scratch_root"):
        host_root = (os.open(os.path.dirname(scratch_root), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC),
                     os.path.basename(scratch_root))  # before the root is replaced
    read_paths = list(config["read_paths"]) + [p for p in sys.path if p and os.path.exists(p)]
    read_paths.append(os.path.dirname(os.path.realpath(sys.executable)))
    cgroup, cgroup_missing = None, config.get("cgroup_missing", "no cgroup was made for this worker")
    if config.get("cgroup") is not None and "worker_cgroup" not in config["disabled"]:
        try:
            cgroup = _WorkerCgroup(config["cgroup"])  # before the root is replaced: /sys is not in the new one
        except OSError as exc:
            cgroup_missing = f"cannot open the worker's cgroup: {exc}"
    omit = config.get("seccomp_omit", ())
    seccomp = sandbox_seccomp_programs(config["disabled"], omit)  # before the PID namespace: see seccomp.py
    active, missing, proc_fd = sandbox_isolate_server(scratch_root, read_paths, config["disabled"])
    os.chdir("/")
    uid = sandbox_worker_uid(config) if config["drop_uid"] else os.getuid()
    plan, child_active, child_missing = sandbox_child_plan(
        sorted(set(read_paths)), scratch_root, config["drop_uid"], uid, seccomp, config["disabled"], omit)
    config = dict(config, drop_uid=plan["drop_uid"])
    active = sorted(set(active) | set(child_active))
    missing.update(child_missing)
    if cgroup is not None:
        active.append("worker_cgroup")
    else:
        missing["worker_cgroup"] = _DISABLED if "worker_cgroup" in config["disabled"] else cgroup_missing
    for name in active:
        missing.pop(name, None)
    owner = (uid, uid) if plan["drop_uid"] else (os.getuid(), os.getgid())
    scratch = SandboxScratch(os.path.join(scratch_root, "suite"), config["limits"], owner,
                             mounts="fresh_scratch" in active, host_root=host_root)
    scratch.fresh()
    hello = {"protections": active, "missing": missing, "python": sys.version.split()[0], "pid": os.getpid(),
             "uid": owner[0]}
    devnull = os.open("/dev/null", os.O_RDWR)
    os.dup2(devnull, 2)  # set-up is done: stderr too (``serve`` did stdin, stdout); the launcher inherits all three
    os.close(devnull)
    board = _Board(config["board_tests"], config["board_bytes"])
    # before any suite is read: see launcher.py. LAUNCHER_CODE: the launcher's modules, compiled by SERVER_BOOTSTRAP
    launcher = _Launcher(board, config, plan, scratch.path, proc_fd, LAUNCHER_CODE,  # noqa: F821
                         cgroup.procs if cgroup is not None else ())
    if cgroup is not None:
        cgroup.baseline = cgroup.state()
        if cgroup.baseline[1] != 1:
            raise _Anomaly("sandbox_start", f"the worker's cgroup holds {cgroup.baseline[1]} processes, not its launcher alone")
    return config, hello, scratch, board, launcher, cgroup


def _renew(scratch, cgroup):
    """After a suite: the scratch renewed if the suite used it (``SandboxScratch.fresh``); why the
    worker itself is not as fresh as when it started (memory, processes), or None."""
    scratch.fresh()
    return cgroup.not_fresh() if cgroup is not None else None


def serve(config):
    """Fork-server main loop: start, then one suite per request until stdin closes or an anomaly retires it."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    config = dict(config, hash_seed=os.environ.get("PYTHONHASHSEED"))  # the launcher starts with the same
    try:
        config, hello, scratch, board, launcher, cgroup = _start(config)
    except _Anomaly as exc:
        replies.write((json.dumps({"start_error": f"{exc.kind}: {exc}"}) + "\n").encode())
        replies.flush()
        return
    try:
        replies.write((json.dumps({"hello": hello}) + "\n").encode())
        replies.flush()
        _serve_suites(requests, replies, config, scratch, board, launcher, cgroup)
    except OSError:
        pass  # the host is gone (a reply to nobody): clean up all the same
    finally:
        launcher.close()
        if cgroup is not None:
            cgroup.remove()  # also when the host died: nothing else would
        scratch.leave_host()


def _serve_suites(requests, replies, config, scratch, board, launcher, cgroup):
    """One suite per request until stdin closes or an anomaly retires the server."""
    for line in requests:
        request = json.loads(line)
        try:
            outcomes, cpu = _run_suite(launcher, board, request, config["limits"], config)
            launcher.check()
            reply = {"outcomes": outcomes, "cpu_s": cpu}
            stale = _renew(scratch, cgroup)  # the next suite starts in a world equal to a fresh one
            if stale is not None:
                reply.update(retire=True, renew=stale)  # this suite's verdict stands: it started fresh
        except _Anomaly as exc:
            reply = {"infra_error": str(exc), "kind": exc.kind, "retire": True}
        except Exception as exc:  # noqa: BLE001 - reported to the host, never cached
            reply = {"infra_error": f"{type(exc).__name__}: {exc}", "kind": "harness", "retire": True}
        replies.write((json.dumps(reply) + "\n").encode())
        if reply.get("retire"):
            break
        if not request.get("more"):
            replies.flush()
    replies.flush()
