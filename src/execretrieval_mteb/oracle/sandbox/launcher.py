"""The launcher: a small confined process that forks each suite's child, so the fork server need not.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``). It uses ``sandbox_confine_launcher``,
``_Board``, ``child_main`` and ``_exit`` defined by the sources placed before it.

Why a process of its own: after a fork, each page that either process writes costs a page fault
(and a copy while both live). The fork server does per-suite work between forks (JSON, the
scratch directory, the watch loop); forking the children itself, it paid those faults on every
suite. The launcher is forked from the server once, after the warm imports, and confined once
(uid nobody, Landlock: its children inherit both); per suite it then only reads a request, forks
and later reaps, touching a handful of pages.

Protocol on three pipes. Server to launcher: ``S`` + 8-byte length + marshal of (code, tests,
start, suite deadline) asks for a child. Launcher to server, 8 bytes per message (``=ii``, kind
and value): on the pid pipe a hello once confined, then each child's pid (written right after the
fork); on the status pipe each child's wait status once the launcher has reaped it (or the errno
of a failed fork). The server sleeps on the status pipe alone, so a suite costs it one wake-up,
and reads the pid only to kill an overrunning child. The pid could in principle be reused between
the reap and a kill sent at that very moment; pids are allocated cyclically, so reuse would take a
full turn of the pid space in that instant.
"""

import gc
import marshal
import os
import signal
import struct

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .child import _Board, _exit, child_main
    from .isolation import sandbox_confine_launcher
except ImportError:
    pass

_HELLO, _PID, _STATUS, _FORK_FAILED = 0, 1, 2, 3
_ANSWER = struct.Struct("=ii")


def _read_exact(fd, size):
    """``size`` bytes from ``fd``, or None at end of file."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _launcher_main(requests_fd, pids_fd, statuses_fd, board, config, plan, scratch_dir):
    """The launcher's loop; ends (exit 0) when the server closes its end of the request pipe."""
    try:
        sandbox_confine_launcher(plan, config["uid"], config["gid"])
        low = 3  # the host's pipes and the Landlock ruleset go
        for fd in sorted((requests_fd, pids_fd, statuses_fd)):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, 1 << 16)
        gc.freeze()
    except BaseException as exc:  # noqa: BLE001 - the server reports it as an infrastructure failure
        board.fail_setup(f"sandbox set-up failed in the launcher: {type(exc).__name__}: {exc}")
        _exit(70)
    os.write(pids_fd, _ANSWER.pack(_HELLO, 0))
    while True:
        op = os.read(requests_fd, 1)
        if op == b"S":
            size = struct.unpack("=Q", _read_exact(requests_fd, 8))[0]
            code_text, tests, start, suite_deadline = marshal.loads(_read_exact(requests_fd, size))
            try:
                os.chdir(scratch_dir)  # the child's working directory, emptied by the server before each suite
                pid = os.fork()
            except OSError as exc:
                os.write(pids_fd, _ANSWER.pack(_PID, -1))
                os.write(statuses_fd, _ANSWER.pack(_FORK_FAILED, exc.errno or 0))
                continue
            if pid == 0:
                child_main(code_text, tests, start, board, config, plan, suite_deadline)
            try:
                os.setpgid(pid, pid)  # also done by the child; whichever runs first wins the race
            except OSError:
                pass
            os.write(pids_fd, _ANSWER.pack(_PID, pid))
            _, status = os.waitpid(pid, 0)
            os.write(statuses_fd, _ANSWER.pack(_STATUS, status))
        else:
            _exit(0)


class _Launcher:
    """The server's handle on its launcher process and on the progress board they share."""

    def __init__(self, capacity, config, plan, scratch_dir):
        self.board = _Board(capacity)
        requests_r, requests_w = os.pipe()
        pids_r, pids_w = os.pipe()
        statuses_r, statuses_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                _launcher_main(requests_r, pids_w, statuses_w, self.board, config, plan, scratch_dir)
            finally:
                _exit(0)  # never fall through into the server's code
        for fd in (requests_r, pids_w, statuses_w):
            os.close(fd)
        self.pid, self.requests, self.pids, self.statuses = pid, requests_w, pids_r, statuses_r
        self._read(self.pids, (_HELLO,))

    def _read(self, fd, kinds):
        """(kind, value) of the next message on ``fd``; raises RuntimeError if the launcher is gone."""
        data = _read_exact(fd, _ANSWER.size)
        if data is None:
            raise RuntimeError(self.board.setup_error() or "the launcher process died")
        kind, value = _ANSWER.unpack(data)
        if kind not in kinds:
            raise RuntimeError(f"the launcher answered {kind} where one of {kinds} was expected")
        return kind, value

    def spawn(self, code_text, tests, start, suite_deadline):
        """Have a child forked to run tests[start:]; it ends with a message on ``self.statuses``."""
        self.board.reset(start)
        payload = marshal.dumps((code_text, list(tests), start, suite_deadline))
        _write_all(self.requests, b"S" + struct.pack("=Q", len(payload)) + payload)

    def child_pid(self):
        """The last child's pid (after ``spawn``; read once per child), or -1 if its fork failed."""
        return self._read(self.pids, (_PID,))[1]

    def child_status(self):
        """The last child's wait status, once it has ended and been reaped (blocks until then)."""
        kind, value = self._read(self.statuses, (_STATUS, _FORK_FAILED))
        if kind == _FORK_FAILED:
            raise RuntimeError(f"the launcher could not fork a child: {os.strerror(value)}")
        return value

    def alive(self):
        """False once the launcher process has ended (it is then replaced before the next suite)."""
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def close(self):
        for fd in (self.requests, self.pids, self.statuses):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.board.mem.close()
