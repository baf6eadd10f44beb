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

    IPC_NAMESPACE = "ipc_namespace"
    """Each worker has its own IPC namespace: SysV and POSIX IPC objects never reach the host or another worker."""

    PID_NAMESPACE = "pid_namespace"
    """Each worker's launcher and children live in their own PID namespace: no process outside the
    worker can be named, and they all die with the launcher."""

    UTS_NAMESPACE = "uts_namespace"
    """Each worker has its own UTS namespace: the code sees the host name ``sandbox``, not the machine's."""

    MINIMAL_ROOT = "minimal_root"
    """The sandbox's root is a fresh tmpfs holding only the allow-listed paths (bind-mounted) and the
    scratch space: nothing else of the host can be stat'ed, listed, read or watched."""

    READ_ONLY_MOUNTS = "read_only_mounts"
    """Every mount is read-only inside the sandbox's mount namespace."""

    SCRATCH_TMPFS = "scratch_tmpfs"
    """Scratch directories live on size- and file-count-limited tmpfs mounts, not on the host's disk."""

    FRESH_SCRATCH = "fresh_scratch"
    """A suite that leaves anything in its scratch directory gets it replaced by a new tmpfs: no content can defeat the clean-up."""

    LANDLOCK_FILESYSTEM = "landlock_filesystem"
    """Landlock: read/execute only below an allow-list; read/write only in the suite's scratch dir."""

    LANDLOCK_NETWORK = "landlock_network"
    """Landlock (ABI >= 4): every TCP bind and connect is denied."""

    LANDLOCK_SCOPE = "landlock_scope"
    """Landlock (ABI >= 6): no signals to, and no abstract unix sockets of, processes outside the sandbox."""

    SECCOMP = "seccomp"
    """seccomp-bpf (written by libseccomp): no fork/exec/ptrace, no sockets, no mount/namespace/kernel-admin calls, no inotify."""

    SELF_ONLY_PROCESS_CALLS = "self_only_process_calls"
    """seccomp argument rules: limits, priority, affinity, scheduling and signals only for the calling
    process; no F_SETOWN/F_SETSIG/O_ASYNC (signal-driven I/O could signal another process)."""

    STREAM_SOCKETPAIR_ONLY = "stream_socketpair_only"
    """The only socket is an unnamed unix stream pair: no datagram, no file descriptor can leave the process."""

    NO_LINGERING_FILES = "no_lingering_files"
    """No descriptor passing (``sendmsg``), no ``O_TMPFILE`` and no ``memfd``: no file or memory can be
    hidden where it outlives the suite (an AF_UNIX descriptor cycle held them after the process ended)."""

    NO_IPC_OBJECTS = "no_ipc_objects"
    """No SysV shared memory, message queues or semaphores and no POSIX message queues (they would outlive the suite)."""

    NO_NEW_PRIVS = "no_new_privs"
    """PR_SET_NO_NEW_PRIVS: no set-uid or file-capability gains."""

    UNPRIVILEGED_UID = "unprivileged_uid"
    """The code runs as an unprivileged uid/gid with no supplementary groups."""

    UID_PER_WORKER = "uid_per_worker"
    """Each worker's code runs as a uid of its own: separate process limits, no same-uid access across workers or oracles."""

    RLIMITS = "rlimits"
    """Address space, file size, open files, processes, locked memory, core dumps and total CPU are capped."""

    WORKER_CGROUP = "worker_cgroup"
    """Each worker's launcher and children are in a cgroup of their own with a memory and a process
    limit (v1 ``memory``/``pids`` or v2): what rlimits cannot see (tmpfs pages, shared memory) is
    bounded, and after each suite the server checks that the worker holds no more processes and
    hardly more memory than when fresh (otherwise the worker is rebuilt before the next suite)."""

    CPU_TIME_LIMIT = "cpu_time_limit"
    """Each test has a CPU-time budget (exact clock read by the child's timers; the server kills a
    child whose test ran past it with its timer signals blocked; RLIMIT_CPU per child as a last backstop)."""

    WALL_DEADLINE = "wall_deadline"
    """Each test and each suite has a wall-clock deadline enforced by the fork server."""

    PROCESS_GROUP_KILL = "process_group_kill"
    """Each suite runs in its own process group, killed as a whole when it ends or overruns."""

    LAUNCHER_CHECK = "launcher_check"
    """After each suite the server checks that its launcher runs with the limits, priority, affinity and
    scheduling it was given; otherwise the suite is not judged (retried on a fresh worker) and the worker is replaced."""

    CLEAN_LAUNCHER = "clean_launcher"
    """The launcher is forked before any suite and never reads one: no child inherits another suite's code or tests."""

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
