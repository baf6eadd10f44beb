"""The isolation layers the oracle can stack, each detected at start and recorded with every result.

The sandbox program reports the names of the layers it managed to switch on; the host turns them
into this enum. Strict mode compares what was asked for with what is active and refuses to run
when anything is missing.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Protection(enum.Enum):
    """One isolation layer; the value is the name used on disk and by the sandbox program."""

    NETWORK_NAMESPACE = "network_namespace"
    """The fork server lives in a fresh network namespace: no interface is up, not even loopback."""

    MOUNT_NAMESPACE = "mount_namespace"
    """Private mount namespace: mounts made for the sandbox never reach the host."""

    READ_ONLY_MOUNTS = "read_only_mounts"
    """Every mount is read-only inside the sandbox's mount namespace."""

    SCRATCH_TMPFS = "scratch_tmpfs"
    """Per-suite scratch directories live on a size-limited tmpfs, not on the host's disk."""

    LANDLOCK_FILESYSTEM = "landlock_filesystem"
    """Landlock: read/execute only below an allow-list; read/write only in the suite's scratch dir."""

    LANDLOCK_NETWORK = "landlock_network"
    """Landlock (ABI >= 4): every TCP bind and connect is denied."""

    LANDLOCK_SCOPE = "landlock_scope"
    """Landlock (ABI >= 6): no signals to, and no abstract unix sockets of, processes outside the sandbox."""

    SECCOMP = "seccomp"
    """seccomp-bpf: no fork/exec/ptrace, no signals except to itself, no non-unix sockets, no mount/namespace/kernel-admin calls."""

    NO_NEW_PRIVS = "no_new_privs"
    """PR_SET_NO_NEW_PRIVS: no set-uid or file-capability gains."""

    UNPRIVILEGED_UID = "unprivileged_uid"
    """The code runs as uid/gid nobody with no supplementary groups."""

    RLIMITS = "rlimits"
    """Address space, file size, open files, processes, core dumps and total CPU are capped."""

    CPU_TIME_LIMIT = "cpu_time_limit"
    """Each test has a CPU-time budget (interval timer in the child, RLIMIT_CPU as a backstop)."""

    WALL_DEADLINE = "wall_deadline"
    """Each test and each suite has a wall-clock deadline enforced by the fork server."""

    PROCESS_GROUP_KILL = "process_group_kill"
    """Each suite runs in its own process group, killed as a whole when it ends or overruns."""

    @classmethod
    def parse_many(cls, names: Iterable[str]) -> tuple[Protection, ...]:
        """Protections from their disk names, in declaration order; unknown names raise ValueError."""
        wanted = set(names)
        unknown = wanted - {p.value for p in cls}
        if unknown:
            valid = ", ".join(p.value for p in cls)
            raise ValueError(f"unknown protection(s) {sorted(unknown)}: valid names are {valid}")
        return tuple(p for p in cls if p.value in wanted)


ALL_PROTECTIONS: frozenset[Protection] = frozenset(Protection)
