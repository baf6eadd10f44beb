"""The launcher: a small confined process that forks each suite's child, and the server's handle on it.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the server's and the launcher's programs (see ``program.py``). It uses
``sandbox_*``, ``_Board``, ``child_main``, ``_on_timer``, ``_exit`` and the pytest shim defined by
the sources placed before it.

Why a process of its own: after a fork, each page that either process writes costs a page fault
(and a copy while both live), and every page the forking process holds costs page-table work in
the fork and again when the child exits. The fork server does per-suite work between forks (JSON,
the scratch directory, the watch loop) and holds all the sandbox modules. The launcher is a
fresh interpreter that the server forks and execs once, before it reads any suite
(``launcher_main``): it holds only the child runner, the confinement it applies and the stdlib the
tasks import (``WARM_IMPORTS`` in ``program.py``), 5.2 MB of memory against the server's 8.7
(measured: about 4 % more suites/s than a launcher forked from the server). It warms the runner up
(``child_warm_up``), so that children do not write into its code. It is confined once (rlimits, the
worker's uid, Landlock, seccomp: its children inherit all of it); per suite it only reads one byte,
forks and later reaps, touching a handful of pages. It never reads a suite (the child takes it from
the board), so what a child inherits holds no other suite's code or tests.

It is process 1 of the worker's PID namespace: a child sees no process outside the worker, and
when the launcher dies the kernel kills whatever is left in the namespace.

Protocol on two pipes. Server to launcher: the byte ``S`` asks for a child. Launcher to server,
16 bytes per message (``=iiqi``, kind, value, CPU microseconds, whether the launcher's own limits
changed): a hello once confined, then per child its wait status and CPU time once reaped (or the
errno of a failed fork). Every read the server does here has a deadline; a launcher that misses
one, dies, or is found altered after a suite (``_Launcher.check``) is an anomaly, and the server
retires with the worker.
"""

import gc
import marshal
import os
import select
import signal
import struct
import sys
import time

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .child import _Board, _exit, _on_timer, child_main, child_warm_up
    from .isolation import (
        sandbox_confine_launcher, sandbox_launcher_environment, sandbox_own_limits, sandbox_prepare_launcher,
        sandbox_process_state, sandbox_ready_plan,
    )
    from .pytest_shim import pytest
    from .syscalls import SysChildrenCpu, sys_libc
except ImportError:
    pass

_HELLO, _STATUS, _FORK_FAILED = 0, 1, 2
_ANSWER = struct.Struct("=iiqi")
_HELLO_BUDGET_S = 10.0  # for the launcher's interpreter to start and confine itself
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # the unit of CPU times in /proc/PID/stat


class _Anomaly(Exception):
    """Something the harness does not expect: the suite gets an infrastructure error, the worker is replaced.

    ``kind`` is one of the host's ``InfraErrorKind`` values.
    """

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def launcher_main(spec):
    """Entry of the launcher program (a fresh interpreter exec'd by ``_Launcher``): get ready, confine, loop.

    ``spec`` (from the server, marshalled with the program): the board's memfd and size, the pipes'
    descriptors, the plan (``sandbox_child_plan``), the limits and the scratch directory. Never returns.
    """
    board = None
    try:
        board = _Board(spec["board_tests"], spec["board_bytes"], tuple(spec["board_fds"]))
        sys.argv = ["-c"]  # what code under `python -c` (the study's runner) sees
        sys.modules["pytest"] = pytest  # `import pytest` in a test gets the shim
        plan = sandbox_ready_plan(spec["plan"], spec["limits"])
        sandbox_prepare_launcher(_on_timer)
        _launcher_loop(spec["requests_fd"], spec["answers_fd"], board, spec["limits"], plan, spec["scratch_dir"])
    except BaseException as exc:  # noqa: BLE001 - the server reports it as an infrastructure failure
        if board is not None:
            board.fail_setup(f"sandbox set-up failed in the launcher: {type(exc).__name__}: {exc}")
    _exit(70)


def _launcher_loop(requests_fd, answers_fd, board, limits, plan, scratch_dir):
    """The launcher's loop; ends (exit 0) when the server closes its end of the request pipe."""
    sandbox_confine_launcher(plan, limits)
    low = 3  # the board's and the program's memfds and the Landlock ruleset go
    for fd in sorted((requests_fd, answers_fd)):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    child_warm_up(limits["test_cpu_s"])  # confined already: even our own suite runs in the sandbox
    gc.collect()
    gc.freeze()  # keep the launcher's objects out of the children's collections: fewer copy-on-write faults
    sys_libc.malloc_trim(0)  # hand start-up's freed heap back: every fork copies the page table of what stays
    read_own_limits = sandbox_own_limits()
    own_limits = read_own_limits()
    children_cpu = SysChildrenCpu()
    reaped_cpu_us = children_cpu.microseconds()
    os.write(answers_fd, _ANSWER.pack(_HELLO, 0, 0, 0))
    while os.read(requests_fd, 1) == b"S":
        try:
            os.chdir(scratch_dir)  # the child's working directory: a fresh one (see SandboxScratch)
            pid = os.fork()
        except OSError as exc:
            os.write(answers_fd, _ANSWER.pack(_FORK_FAILED, exc.errno or 0, 0, 0))
            continue
        if pid == 0:
            child_main(board, limits, plan)
        try:
            os.setpgid(pid, pid)  # also done by the child; whichever runs first wins the race
        except OSError:
            pass
        status = os.waitpid(pid, 0)[1]
        os.chdir("/")  # a scratch tmpfs the server replaces is then held by no one: its memory goes at once
        total_us = children_cpu.microseconds()
        cpu_us, reaped_cpu_us = total_us - reaped_cpu_us, total_us
        os.write(answers_fd, _ANSWER.pack(_STATUS, status, cpu_us, read_own_limits() != own_limits))
    _exit(0)


class _Launcher:
    """The server's handle on its launcher process: ask for children, read their ends, check the launcher."""

    def __init__(self, board, config, plan, scratch_dir, proc_fd, launcher_code, cgroup_procs=()):
        """Start the launcher: a fresh interpreter running ``launcher_code`` (the launcher's modules,
        compiled by the server: see ``program.py``), confined with ``plan``, in the worker's cgroup
        (``cgroup_procs``: its ``cgroup.procs`` files, one per hierarchy); returns once it is ready."""
        self.board, self.proc_fd = board, proc_fd
        requests_r, requests_w = os.pipe()
        answers_r, answers_w = os.pipe()
        spec = {"board_tests": board.capacity, "board_bytes": board.payload_capacity, "board_fds": list(board.fds),
                "requests_fd": requests_r, "answers_fd": answers_w, "plan": plan, "limits": config["limits"],
                "scratch_dir": scratch_dir}
        program = marshal.dumps((launcher_code, spec))
        program_fd = os.memfd_create("launcher", os.MFD_CLOEXEC)
        if os.write(program_fd, program) != len(program):  # a tmpfs file: all at once, or the memory is gone
            raise _Anomaly("harness", "could not hand the launcher its program")
        argv = config["launcher_command"] + [str(program_fd), str(len(program))]
        env = sandbox_launcher_environment(scratch_dir, config.get("hash_seed"))
        passed = [fd for fd in (requests_r, answers_w, *board.fds, program_fd, plan["landlock_ruleset"]) if fd is not None]
        pid = os.fork()
        if pid == 0:
            try:
                for fd in cgroup_procs:
                    os.write(fd, b"0")  # this process, before its interpreter allocates anything
                for fd in passed:
                    os.set_inheritable(fd, True)
                os.execve(argv[0], argv, env)
            except BaseException as exc:  # noqa: BLE001 - reported by the server as the launcher's death
                board.fail_setup(f"the launcher could not start: {type(exc).__name__}: {exc}")
            finally:
                _exit(70)  # never fall through into the server's code
        for fd in (requests_r, answers_w, program_fd):
            os.close(fd)
        self.pid, self.requests, self.answers = pid, requests_w, answers_r
        os.set_blocking(answers_r, False)  # read first, poll only when nothing is there yet
        self._poller = select.poll()
        self._poller.register(answers_r, select.POLLIN)
        self._read(time.monotonic() + _HELLO_BUDGET_S, (_HELLO,))
        self.snapshot = sandbox_process_state(pid)

    def _read(self, deadline, kinds):
        """(kind, value, cpu_us) of the next answer, or raises _Anomaly when it is not there by ``deadline``
        (or says the launcher's limits changed)."""
        data = b""
        while len(data) < _ANSWER.size:
            try:
                chunk = os.read(self.answers, _ANSWER.size - len(data))
            except BlockingIOError:
                if not self.wait(deadline):
                    raise _Anomaly("launcher_unresponsive", "the launcher did not answer in time") from None
                continue
            if not chunk:
                raise _Anomaly("launcher_died", self.board.setup_error() or "the launcher process died")
            data += chunk
        kind, value, cpu_us, limits_changed = _ANSWER.unpack(data)
        if kind not in kinds:
            raise _Anomaly("launcher_altered", f"the launcher answered {kind} where one of {kinds} was expected")
        if limits_changed:
            raise _Anomaly("launcher_altered", "the launcher's resource limits changed during the suite")
        return kind, value, cpu_us

    def wait(self, deadline):
        """True once an answer can be read, False when ``deadline`` passes first."""
        return bool(self._poller.poll(max(0, int((deadline - time.monotonic()) * 1000) + 1)))

    def spawn(self):
        """Have a child forked to run what the board lists; it ends with an answer (``child_end``)."""
        os.write(self.requests, b"S")

    def child_end(self, deadline):
        """(wait status, CPU seconds) of the last child once reaped; raises _Anomaly if not by ``deadline``."""
        kind, value, cpu_us = self._read(deadline, (_STATUS, _FORK_FAILED))
        if kind == _FORK_FAILED:
            raise _Anomaly("fork_failed", f"the launcher could not fork a child: {os.strerror(value)}")
        return value, cpu_us / 1e6

    def _child_pids(self):
        """Host pids of the launcher's children, from the kernel's list (through the host's /proc,
        which the server's root no longer shows): the launcher's own numbers are those of its PID
        namespace, which mean nothing here."""
        try:
            fd = os.open(f"{self.pid}/task/{self.pid}/children", os.O_RDONLY, dir_fd=self.proc_fd)
            try:
                return [int(p) for p in os.read(fd, 4096).split()]
            finally:
                os.close(fd)
        except OSError:
            return []

    def child_cpu(self):
        """CPU seconds the running child has used (all its threads, to the scheduler tick), or None."""
        for pid in self._child_pids():
            try:
                fd = os.open(f"{pid}/stat", os.O_RDONLY, dir_fd=self.proc_fd)
                try:
                    fields = os.read(fd, 4096).rsplit(b")", 1)[1].split()
                finally:
                    os.close(fd)
                return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime, stime
            except (OSError, IndexError, ValueError):
                return None
        return None

    def kill_child(self):
        """SIGKILL the running child (and its process group), if any."""
        for pid in self._child_pids():
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def check(self):
        """Raise _Anomaly unless the launcher runs, unstopped, with the priority, affinity and
        scheduling it had once confined (its limits it checks itself after each child: ``_read``)."""
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
            state = sandbox_process_state(self.pid) if pid == 0 else None
        except OSError as exc:
            raise _Anomaly("launcher_died", f"the launcher is gone: {exc}") from None
        if pid != 0:
            kind = "launcher_altered" if os.WIFSTOPPED(status) else "launcher_died"
            raise _Anomaly(kind, f"the launcher was {'stopped' if os.WIFSTOPPED(status) else 'ended'} (wait status {status})")
        if state != self.snapshot:
            changed = [name for name, a, b in zip(("priority", "affinity", "scheduling policy"),
                                                   self.snapshot, state) if a != b]
            raise _Anomaly("launcher_altered", f"the launcher's {', '.join(changed)} changed during the suite")

    def close(self):
        for fd in (self.requests, self.answers):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
