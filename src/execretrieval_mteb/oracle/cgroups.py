"""A cgroup per worker: a kernel-level bound on the memory and processes of its launcher and children.

Resource limits are per process (address space, file size) or per uid (processes); they do not see
memory that outlives a process or belongs to no one process: tmpfs pages, shared memory, socket
buffers. A memory cgroup charges all of it to the worker that made it, caps it, and lets the fork
server check after each suite that the worker holds no more shared memory than when fresh.

The host creates the cgroup (it runs as root, and it outlives the server, so it can remove the
cgroup whatever happened to the server), below its own cgroup in each hierarchy: cgroup v1's
``memory`` and ``pids`` controllers where they are mounted (``memory.limit_in_bytes``,
``pids.max``), else cgroup v2's (``memory.max``, ``pids.max``; the host's cgroup must be able to
delegate them, i.e. list them in ``cgroup.subtree_control``). The server moves its launcher into it
before the launcher's interpreter starts (``launcher.py``). Without root, or without either
controller, there is no cgroup: the ``worker_cgroup`` protection is then reported missing, with
why, and strict mode refuses to run.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

_CONTROLLERS = ("memory", "pids")
_counter = itertools.count()
_REMOVE_BUDGET_S = 2.0  # for the killed processes of a worker to leave its cgroup


@dataclass(frozen=True, slots=True)
class _Hierarchy:
    version: int
    mount: Path
    own: str
    """The host process's cgroup in this hierarchy, relative to ``mount``."""


def _hierarchies() -> dict[str, _Hierarchy]:
    """{controller: the hierarchy that has it}, v1 preferred (where v1 has a controller, v2 cannot)."""
    own_v1, own_v2 = {}, None
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            own_v2 = path
        for name in controllers.split(","):
            own_v1[name] = path
    found: dict[str, _Hierarchy] = {}
    v2_mount = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, right = line.split(" - ", 1)
        fstype, _, options = right.split(" ")[:3]
        mount = Path(left.split(" ")[4])
        if fstype == "cgroup":
            for name in _CONTROLLERS:
                if name in options.split(",") and name in own_v1:
                    found.setdefault(name, _Hierarchy(1, mount, own_v1[name]))
        elif fstype == "cgroup2" and v2_mount is None:
            v2_mount = mount
    if v2_mount is not None and own_v2 is not None:
        available = (v2_mount / own_v2.lstrip("/") / "cgroup.controllers").read_text().split()
        for name in _CONTROLLERS:
            if name not in found and name in available:
                found[name] = _Hierarchy(2, v2_mount, own_v2)
    return found


class WorkerCgroup:
    """The cgroup directories (one per hierarchy) of one fork server's worker, with its limits."""

    def __init__(self, directories: dict[str, Path], versions: dict[str, int]) -> None:
        self.directories, self.versions = directories, versions

    @classmethod
    def create(cls, memory_bytes: int, processes: int) -> WorkerCgroup | str:
        """A fresh cgroup capped at ``memory_bytes`` and ``processes``, or why there can be none."""
        if os.geteuid() != 0:
            return "the oracle is not running as root, so it cannot make cgroups"
        try:
            hierarchies = _hierarchies()
        except (OSError, ValueError) as exc:
            return f"cannot read this process's cgroups: {exc}"
        absent = [name for name in _CONTROLLERS if name not in hierarchies]
        if absent:
            return f"no cgroup hierarchy offers the {' and '.join(absent)} controller (neither v1 nor v2)"
        name = f"execretrieval-oracle-{os.getpid()}-{next(_counter)}"
        made: dict[str, Path] = {}
        try:
            for controller, where in hierarchies.items():
                parent = where.mount / where.own.lstrip("/")
                if where.version == 2:
                    (parent / "cgroup.subtree_control").write_text(f"+{controller}")
                made[controller] = parent / name
                if not made[controller].exists():  # v2: one directory for both controllers
                    made[controller].mkdir(mode=0o755)
            for controller, value in (("memory", memory_bytes), ("pids", processes)):
                limit = "memory.limit_in_bytes" if (controller, hierarchies[controller].version) == ("memory", 1) \
                    else f"{controller}.max"
                (made[controller] / limit).write_text(str(value))
        except OSError as exc:
            cls(made, {}).remove()
            return f"cannot make a cgroup for the worker: {exc}"
        return cls(made, {c: h.version for c, h in hierarchies.items()})

    def to_json(self) -> dict[str, object]:
        """What the fork server needs: the directories and the hierarchies' versions."""
        return {"directories": {c: str(d) for c, d in self.directories.items()}, "versions": self.versions}

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove its directories (the server is gone by then)."""
        deadline = time.monotonic() + _REMOVE_BUDGET_S
        for directory in dict.fromkeys(self.directories.values()):
            while True:
                try:
                    for pid in (directory / "cgroup.procs").read_text().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except OSError:
                            pass
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left for the kernel: an empty cgroup costs nothing; named after our pid
                    time.sleep(0.01)
