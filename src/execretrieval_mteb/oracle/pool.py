"""Warm fork servers: one sandbox interpreter per worker, one fork per suite.

Each ``ForkServer`` is a long-lived process running the sandbox program (``program.py``); the host
sends it suites over a pipe, a batch at a time, and reads the per-test outcomes back (the server
answers a batch at once, so that the host wakes once per batch). Anything anomalous (a server that
dies, stops answering or retires itself after finding its launcher altered) costs that server: it
is replaced, and the suite is run once more on the fresh one, followed by the rest of its batch.
Only if that fails too does the suite get an infrastructure error (typed, reported, never cached);
the other suites carry on.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO

from .cgroups import WorkerCgroup
from .limits import TIMEOUT_CONFIRM_FACTOR, Limits, near_limit
from .outcomes import InfraErrorKind, Suite, SuiteResult, TestOutcome
from .program import DEFAULT_READ_PATHS, SANDBOX_UID_BASE, find_interpreter, sandbox_command
from .protections import Protection

_HELLO_TIMEOUT_S = 60.0
_REPLY_MARGIN_S = 20.0  # beyond the suite's wall budgets (first run and confirmation), before the host gives up
_BOARD_TESTS = 256  # tests per suite the shared board holds; a bigger suite gets a server with a bigger board
_BOARD_BYTES = 1 << 20  # bytes of marshalled suite the board holds, likewise
_BATCH_SUITES = 8  # suites sent to a server at once, while many are left (measured: 3 % more suites/s than 1)


class SandboxStartError(RuntimeError):
    """The sandbox program could not start (no usable interpreter, or it died during set-up)."""


@dataclass(frozen=True, slots=True)
class SandboxInfo:
    """What a fork server reported at start."""

    protections: tuple[Protection, ...]
    missing: dict[str, str] = field(default_factory=dict)
    python: str = ""


class ForkServer:
    """One sandbox interpreter process; not thread-safe (one suite at a time)."""

    def __init__(
        self, limits: Limits, read_paths: Sequence[str] = DEFAULT_READ_PATHS, disabled: Iterable[Protection] = (),
        cpu: int | None = None,
    ) -> None:
        self.limits = limits
        self.cpu = cpu
        """CPU the server and everything it forks are pinned to, or None to let the kernel place them."""
        self.read_paths = tuple(read_paths)
        self.disabled = tuple(sorted(p.value for p in disabled))
        self.drop_uid = os.geteuid() == 0
        self.interpreter = find_interpreter(world_readable=self.drop_uid)
        self._proc: subprocess.Popen[bytes] | None = None
        self._scratch_root: str | None = None
        self._cgroup: WorkerCgroup | None = None
        self._retiring = False  # the server said its worker is not fresh: replace it after this reply
        self._buffer = b""
        self._unsent = memoryview(b"")  # what of the last batch the server has not taken in yet
        self._stderr: IO[bytes] | None = None  # the server's stderr, read back when it fails to start
        self._owner_pid = os.getpid()
        self._board = (_BOARD_TESTS, _BOARD_BYTES)
        self.info: SandboxInfo | None = None
        self.uid: int | None = None
        """The uid this worker's code runs as (known once the server has started)."""
        self.replaced = 0
        """How many times this worker's server was replaced after an anomaly (or to fit a big suite)."""
        self.renewed = 0
        """How many times this worker's server was replaced because a suite left its world not as fresh
        (memory, processes or descriptors; see ``docs/oracle.md``) before the next suite."""
        self.omit_rule_groups: tuple[str, ...] = ()
        """seccomp rule groups to leave out of the next server started (only for the test that shows
        the start-up check refuses such a sandbox)."""

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> SandboxInfo:
        """Start the process (if needed) and return its hello."""
        self._forget_if_inherited()
        if self._proc is None:
            self._launch()
        return self._await_hello()

    def _launch(self) -> None:
        self._scratch_root = tempfile.mkdtemp(prefix="execretrieval-oracle-")
        os.chmod(self._scratch_root, 0o711)
        cgroup: WorkerCgroup | str = "disabled by the caller"
        if Protection.WORKER_CGROUP.value not in self.disabled:
            cgroup = WorkerCgroup.create(_cgroup_memory_bytes(self.limits), self.limits.processes)
        self._cgroup = cgroup if isinstance(cgroup, WorkerCgroup) else None
        config = {
            "limits": self.limits.to_json(), "scratch_root": self._scratch_root, "read_paths": list(self.read_paths),
            "drop_uid": self.drop_uid, "uid_base": SANDBOX_UID_BASE, "disabled": list(self.disabled),
            "cpu": self.cpu, "board_tests": self._board[0], "board_bytes": self._board[1],
            "timeout_confirm_factor": TIMEOUT_CONFIRM_FACTOR, "seccomp_omit": list(self.omit_rule_groups),
            "cgroup": self._cgroup.to_json() if self._cgroup is not None else None,
            "cgroup_missing": cgroup if isinstance(cgroup, str) else None,
            "remove_scratch_root": True,  # made for this server alone: it removes it as it ends, should we die first
        }
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
        if "TZ" in os.environ:
            env["TZ"] = os.environ["TZ"]
        self._owner_pid = os.getpid()
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            sandbox_command(self.interpreter.path, config),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            env=env, cwd="/", start_new_session=True,
        )
        os.set_blocking(self._proc.stdin.fileno(), False)  # type: ignore[union-attr]  # see _send
        self._buffer, self._unsent = b"", memoryview(b"")
        self.info = None

    def _await_hello(self) -> SandboxInfo:
        if self.info is None:
            line = self._read_line(time.monotonic() + _HELLO_TIMEOUT_S)
            if line is None:
                assert self._stderr is not None
                self._stderr.seek(0)
                last = self._stderr.read().decode("utf-8", "replace").strip().splitlines()[-1:]
                self.close()
                raise SandboxStartError(
                    f"the sandbox program ({self.interpreter.path}) died or hung during set-up"
                    + (f": {last[0]}" if last else "")
                )
            first = json.loads(line)
            if "start_error" in first:
                self.close()
                raise SandboxStartError(f"the sandbox program could not start: {first['start_error']}")
            hello = first["hello"]
            self.uid = int(hello["uid"])
            self.info = SandboxInfo(
                protections=Protection.parse_many(hello["protections"]), missing=dict(hello["missing"]),
                python=hello["python"],
            )
        return self.info

    def _forget_if_inherited(self) -> None:
        """In a forked copy of the host (e.g. multiprocessing), leave the parent's server alone."""
        if self._owner_pid != os.getpid():
            self._proc, self._scratch_root, self._stderr, self.info = None, None, None, None
            self._cgroup = None
            self._owner_pid = os.getpid()

    def close(self) -> None:
        """Stop the process (closing stdin ends its loop) and remove its scratch root."""
        self._forget_if_inherited()
        proc, self._proc, self.info, self._unsent = self._proc, None, None, memoryview(b"")
        if proc is not None:
            try:
                proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            try:
                proc.wait(timeout=self.limits.suite_wall_s + 2)
            except subprocess.TimeoutExpired:
                self._kill(proc)
            proc.stdout.close()  # type: ignore[union-attr]
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._scratch_root is not None:
            shutil.rmtree(self._scratch_root, ignore_errors=True)
            self._scratch_root = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    @staticmethod
    def _kill(proc: subprocess.Popen[bytes]) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()

    # -- suites -----------------------------------------------------------------------------
    def run(self, suite: Suite) -> SuiteResult:
        """Run one suite (see ``run_many``)."""
        return self.run_many([suite])[0]

    def run_many(self, suites: Sequence[Suite]) -> list[SuiteResult]:
        """Run ``suites`` in order, sent to the server in one batch (it answers once per batch).

        A harness failure replaces the server and runs that suite once more on the fresh one (only a
        second failure comes back as an ``infra_error`` result); the rest of the batch follows it there.
        """
        results: list[SuiteResult] = []
        first_try: SuiteResult | None = None
        while len(results) < len(suites):
            for result in self._run_batch(suites[len(results):]):
                if result.judged:
                    results.append(result)
                    first_try = None
                elif first_try is None:
                    first_try = result
                    self._discard()
                else:
                    results.append(SuiteResult(
                        outcomes=(), protections=result.protections, infra_kind=result.infra_kind,
                        infra_error=f"{result.infra_error} (also on the first try: {first_try.infra_error})",
                    ))
                    first_try = None
        return results

    def _run_batch(self, suites: Sequence[Suite]) -> list[SuiteResult]:
        """Results for a leading part of ``suites``: all of them, or up to and including the first
        that the harness failed to judge (the server is then gone or discarded)."""
        try:
            for suite in suites:
                self._fit_board(suite)
            info = self.start()
        except SandboxStartError as exc:
            return [SuiteResult(outcomes=(), infra_kind=InfraErrorKind.SANDBOX_START, infra_error=str(exc))]
        sent = [i for i, suite in enumerate(suites) if suite.tests]
        request = "".join(
            json.dumps({"code": suites[i].code, "tests": list(suites[i].tests), "more": i != sent[-1]}) + "\n"
            for i in sent
        ).encode("utf-8")
        if sent and not self._send(request):
            return [self._fail(InfraErrorKind.WORKER_DIED, "fork server unreachable")]
        budget = (1 + TIMEOUT_CONFIRM_FACTOR) * self.limits.suite_wall_s + _REPLY_MARGIN_S
        deadline = time.monotonic() + budget * len(sent)  # the server answers the batch at its end
        results = []
        for suite in suites:
            result = self._reply(suite, info, deadline) if suite.tests else SuiteResult(
                outcomes=(), protections=info.protections)
            results.append(result)
            if not result.judged:
                break
            if self._retiring:  # judged in a fresh world, but the next suite needs a fresh worker
                self._retiring = False
                self.renewed += 1
                self.close()
                break
        return results

    def _reply(self, suite: Suite, info: SandboxInfo, deadline: float) -> SuiteResult:
        """The server's answer for ``suite``, the next one it was sent."""
        line = self._read_line(deadline)
        if line is None:
            return self._fail(InfraErrorKind.WORKER_DIED, "fork server died or stopped answering")
        try:
            reply = json.loads(line)
            if "infra_error" in reply:
                if reply.get("retire"):
                    self._discard()
                return SuiteResult(outcomes=(), protections=info.protections, infra_error=str(reply["infra_error"]),
                                   infra_kind=InfraErrorKind.from_value(reply.get("kind")))
            outcomes = tuple(TestOutcome.parse(o) for o in reply["outcomes"])
            cpu_s = [float(x) for x in reply["cpu_s"]]
            self._retiring = bool(reply.get("retire"))
        except (ValueError, KeyError, TypeError) as exc:
            return self._fail(InfraErrorKind.MALFORMED_REPLY, f"malformed reply from the fork server: {exc}")
        if len(outcomes) != len(suite.tests) or len(cpu_s) != len(suite.tests):
            return self._fail(InfraErrorKind.MALFORMED_REPLY,
                              f"fork server answered {len(outcomes)} outcomes for {len(suite.tests)} tests")
        return SuiteResult(outcomes=outcomes, protections=info.protections, near_limit=near_limit(cpu_s, self.limits))

    def _fit_board(self, suite: Suite) -> None:
        """Replace the server by one with a bigger board if ``suite`` does not fit the current one."""
        tests = len(suite.tests)
        if tests <= self._board[0] and 4 * (len(suite.code) + sum(map(len, suite.tests))) + 16 * (tests + 1) + 64 <= self._board[1]:
            return  # fits even at 4 bytes a character
        size = 64 + sum(16 + len(text.encode("utf-8", "surrogatepass")) for text in (suite.code, *suite.tests))
        if tests > self._board[0] or size > self._board[1]:
            self._discard()
            self._board = (max(self._board[0], 2 ** math.ceil(math.log2(tests))),
                           max(self._board[1], 2 ** math.ceil(math.log2(size))))

    def _send(self, request: bytes) -> bool:
        """Start sending ``request``; ``_read_line`` sends the rest while it waits for replies.

        Never a blocking write: the server answers while it still reads the batch, and a batch
        whose replies outgrow the pipe (many tests, long exception names) would leave both sides
        blocked in a write, the host's without a deadline (found: 64 such suites hung a run).
        False when the server is gone (writing to it fails: no need to ask the kernel first).
        """
        self._unsent = memoryview(request)
        return self._push()

    def _push(self) -> bool:
        """Write what the pipe takes of the unsent request; False when the server is gone."""
        assert self._proc is not None and self._proc.stdin is not None
        try:
            while self._unsent:
                self._unsent = self._unsent[os.write(self._proc.stdin.fileno(), self._unsent):]
        except BlockingIOError:
            pass
        except OSError:
            self._unsent = memoryview(b"")
            return False
        return True

    def _discard(self) -> None:
        """Kill the process (and anything in its session) and forget it; the next suite starts a new one."""
        if self._proc is not None:
            self._kill(self._proc)
            self.replaced += 1
        self.close()

    def _fail(self, kind: InfraErrorKind, why: str) -> SuiteResult:
        self._discard()
        return SuiteResult(outcomes=(), infra_kind=kind, infra_error=why)

    def _read_line(self, deadline: float) -> bytes | None:
        """One reply line, or None on EOF or when ``deadline`` passes; meanwhile sends the rest of
        the request as the server takes it in."""
        assert self._proc is not None and self._proc.stdout is not None and self._proc.stdin is not None
        fd, request_fd = self._proc.stdout.fileno(), self._proc.stdin.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            poller = select.poll()  # not select(): no limit on the descriptors' numbers
            poller.register(fd, select.POLLIN)
            if self._unsent:
                poller.register(request_fd, select.POLLOUT)
            ready = dict(poller.poll(math.ceil(remaining * 1000)))
            if request_fd in ready:
                self._push()  # a server gone before taking it all in: its end of the pipe tells
            if fd not in ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line


def _cgroup_memory_bytes(limits: Limits) -> int:
    """The worker cgroup's memory limit: a child's address space, its scratch space and 256 MiB for
    the launcher and the kernel's share, so that it never binds before the rlimits that give
    ordinary code its verdicts (``ERROR:MemoryError``); it bounds what they cannot see."""
    return (limits.memory_mb + limits.scratch_mb + 256) << 20


def _worker_cpus(workers: int) -> list[int | None]:
    """One CPU per worker when the pool has exactly one worker per CPU it may use, else no pinning.

    A suite's child then runs on the CPU where its launcher copied the pages it touches (measured:
    about 10 % more suites/s on 2 cores). A smaller pool is left to the scheduler, so that two
    pools in one machine (or a single-worker pool next to other work) do not pile onto CPU 0.
    """
    cpus = sorted(os.sched_getaffinity(0))
    return list(cpus) if workers == len(cpus) > 1 else [None] * workers


class ForkServerPool:
    """``workers`` fork servers driven by one host thread each; results come back in input order."""

    def __init__(
        self, workers: int, limits: Limits, read_paths: Sequence[str] = DEFAULT_READ_PATHS,
        disabled: Iterable[Protection] = (),
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.limits = limits
        cpus = _worker_cpus(workers)
        self.servers = [ForkServer(limits, read_paths, disabled, cpu) for cpu in cpus]

    def start(self) -> SandboxInfo:
        """Start every server (in parallel) and return the first one's hello."""
        for server in self.servers:
            if server._proc is None:
                server._launch()
        infos = [server.start() for server in self.servers]
        return infos[0]

    def close(self) -> None:
        for server in self.servers:
            server.close()

    def run(
        self, suites: Sequence[Suite], on_result: Callable[[int, SuiteResult], None] | None = None,
    ) -> list[SuiteResult]:
        """Run ``suites``; ``on_result(index, result)`` is called (under a lock) as each one finishes."""
        results: list[SuiteResult | None] = [None] * len(suites)
        lock = threading.Lock()
        stop = threading.Event()
        taken = 0  # suites handed to a worker so far

        def take() -> range:
            """The next batch: small enough that the workers finish together (a batch is a worker's
            to the end), large enough to spare wake-ups while much is left."""
            nonlocal taken
            with lock:
                size = max(1, min(_BATCH_SUITES, (len(suites) - taken) // (4 * len(self.servers))))
                batch = range(taken, min(len(suites), taken + size))
                taken = batch.stop
            return batch

        def work(server: ForkServer) -> None:
            while not stop.is_set():
                batch = take()
                if not batch:
                    return
                for index, result in zip(batch, server.run_many([suites[i] for i in batch])):
                    results[index] = result
                    if on_result is not None:
                        with lock:
                            on_result(index, result)

        busy = self.servers[: max(1, min(len(self.servers), len(suites)))]
        with ThreadPoolExecutor(max_workers=len(busy), thread_name_prefix="oracle-worker") as executor:
            futures = [executor.submit(work, server) for server in busy]
            try:
                for future in futures:
                    future.result()
            except BaseException:
                stop.set()  # Ctrl-C or a bug: let the workers finish their current batch only
                raise
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            raise RuntimeError(f"oracle pool lost the results of suites {missing[:5]}")
        return results  # type: ignore[return-value]
