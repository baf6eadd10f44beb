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

Protocol on two pipes. Server to launcher: ``S`` + 8-byte length + marshal of (code, tests,
start, suite deadline) asks for a child; ``R`` asks it to reap that child. Launcher to server,
8 bytes each (``=ii``, kind and value): a hello once confined, the child's pid (or ``-errno``),
its wait status. Until the server says ``R`` the child stays unreaped (a zombie once it ends), so
its pid cannot be reused while the server watches and kills it.
"""

import gc
import marshal
import os
import signal
import struct

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .child import _Board, _exit, child_main
    from .sandbox import sandbox_confine_launcher
except ImportError:
    pass

_HELLO, _PID, _STATUS = 0, 1, 2
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


def _launcher_main(requests_fd, answers_fd, board, config, plan, scratch_dir):
    """The launcher's loop; ends (exit 0) when the server closes its end of the request pipe."""
    try:
        sandbox_confine_launcher(plan, config["uid"], config["gid"])
        keep = sorted((requests_fd, answers_fd))  # the host's pipes and the Landlock ruleset go
        os.closerange(3, keep[0])
        os.closerange(keep[0] + 1, keep[1])
        os.closerange(keep[1] + 1, 1 << 16)
        gc.freeze()
    except BaseException as exc:  # noqa: BLE001 - the server reports it as an infrastructure failure
        board.fail_setup(f"sandbox set-up failed in the launcher: {type(exc).__name__}: {exc}")
        _exit(70)
    os.write(answers_fd, _ANSWER.pack(_HELLO, 0))
    pid = 0
    while True:
        op = os.read(requests_fd, 1)
        if op == b"S":
            size = struct.unpack("=Q", _read_exact(requests_fd, 8))[0]
            code_text, tests, start, suite_deadline = marshal.loads(_read_exact(requests_fd, size))
            try:
                os.chdir(scratch_dir)  # the child's working directory, emptied by the server before each suite
                pid = os.fork()
            except OSError as exc:
                os.write(answers_fd, _ANSWER.pack(_PID, -(exc.errno or 1)))
                continue
            if pid == 0:
                child_main(code_text, tests, start, board, config, plan, suite_deadline)
            try:
                os.setpgid(pid, pid)  # also done by the child; whichever runs first wins the race
            except OSError:
                pass
            os.write(answers_fd, _ANSWER.pack(_PID, pid))
            _, status = os.waitpid(pid, 0)
            os.write(answers_fd, _ANSWER.pack(_STATUS, status))
        else:
            _exit(0)


class _Launcher:
    """The server's handle on its launcher process and on the progress board they share."""

    def __init__(self, capacity, config, plan, scratch_dir):
        self.board = _Board(capacity)
        requests_r, requests_w = os.pipe()
        answers_r, answers_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                _launcher_main(requests_r, answers_w, self.board, config, plan, scratch_dir)
            finally:
                _exit(0)  # never fall through into the server's code
        os.close(requests_r)
        os.close(answers_w)
        self.pid, self.requests, self.answers = pid, requests_w, answers_r
        self._answer(_HELLO)

    def _answer(self, kind):
        data = _read_exact(self.answers, _ANSWER.size)
        if data is None:
            raise RuntimeError(self.board.setup_error() or "the launcher process died")
        got, value = _ANSWER.unpack(data)
        if got != kind:
            raise RuntimeError(f"the launcher answered {got} where {kind} was expected")
        return value

    def spawn(self, code_text, tests, start, suite_deadline):
        """Fork a child running tests[start:]; returns its pid (unreaped until ``reap``)."""
        self.board.reset(start)
        payload = marshal.dumps((code_text, list(tests), start, suite_deadline))
        _write_all(self.requests, b"S" + struct.pack("=Q", len(payload)) + payload)
        pid = self._answer(_PID)
        if pid < 0:
            raise RuntimeError(f"the launcher could not fork a child: {os.strerror(-pid)}")
        return pid

    def reap(self):
        """Wait status of the last child (the caller knows it ended, or has killed it)."""
        return self._answer(_STATUS)

    def alive(self):
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def close(self):
        for fd in (self.requests, self.answers):
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
