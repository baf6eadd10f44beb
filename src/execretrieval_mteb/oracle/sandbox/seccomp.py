"""seccomp filters, written by libseccomp: what the sandboxed code may ask the kernel, argument by argument.

Sandbox-side module: stdlib only (libseccomp's ``seccomp`` module is looked up at run time) and no
package imports, because its source text is concatenated into the sandbox program (see
``program.py``). Names starting with ``seccomp_`` are its interface.

libseccomp (Debian's ``python3-seccomp``, for the sandbox's system interpreter) turns rules given
by call name and argument into BPF: it compares all 64 bits of an argument, or exactly the bits
named by a mask, and it kills a process making a call of another architecture's table (x32
included). A helper process forked once by the fork server, before anything is confined, loads it
and exports two raw programs; from then on installing one is a single prctl. libseccomp is never
mapped in the server, the launcher or a child.

Denied calls fail with EPERM (Python raises PermissionError, a normal ``ERROR:`` verdict) so the
verdict names what the code tried. The rules, by what they keep a suite from doing (each bullet
one or more of the named groups of ``SECCOMP_RULE_GROUPS`` and ``SECCOMP_CHILD_RULE_GROUPS``):

- **New processes and programs**: no fork/vfork/execve; ``clone`` only with CLONE_THREAD (child
  program); ``clone3``, whose flags live in memory a filter cannot read, answers ENOSYS so that
  glibc falls back to ``clone``.
- **Touching another process**: calls that take a pid act only on the caller (``prlimit64``,
  ``sched_set*``, ``setpriority``/``ioprio_set`` for the calling process only, ``migrate_pages``,
  ``move_pages``, ``get_robust_list``); signals only to its own pid (child program); no ptrace,
  ``process_vm_*``, ``kcmp``, pidfds, ``setsid``/``setpgid``; no signal-driven I/O that could
  signal someone else (``F_SETOWN``, ``F_SETOWN_EX``, ``F_SETSIG``, ``O_ASYNC``, ``FIOSETOWN``,
  ``SIOCSPGRP``, ``FIOASYNC``).
- **Reaching out**: no ``socket`` of any family and no connect/bind/listen/accept; only an
  unnamed unix *stream* ``socketpair`` (asyncio's self-pipe), whose ends stay in the process, so
  no datagram and no file descriptor can be sent anywhere.
- **Leaving things behind**: no SysV shared memory, message queues or semaphores, no POSIX
  message queues (the worker also has its own IPC namespace); no descriptor passing (``sendmsg``,
  ``sendmmsg``: a stream pair sending descriptors, its own ends among them, into its own queue
  makes a garbage cycle that keeps files and memory allocated after the process has ended), no
  file without a name (``O_TMPFILE`` by ``open``/``openat``; ``openat2``, whose flags live in
  memory, answers ENOSYS) and no ``memfd_create``/``memfd_secret``: what a suite writes is a named
  file in its scratch space, seen and cleared by the server. ``tempfile.TemporaryFile`` falls
  back to a named file it unlinks at once.
- **Watching the host**: no inotify or fanotify.
- **The kernel itself**: no mount/namespace/module/kexec/bpf/perf/io_uring/keyring/userfaultfd
  and similar administration calls.

Two stacked programs: the launcher's (everything that does not stop the launcher forking)
installed once and inherited by every child, and a short child program added by each child. The
child program names the child's own pid, known only after fork: it is built with a sentinel in
the pid's place and each child writes its pid over the sentinel's places before installing it.
"""

import ctypes
import errno
import os
import struct
import sys

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .syscalls import sys_prctl_args, sys_prctl_prepared
except ImportError:
    pass

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_PID_SENTINEL = 0x7A5EC0DE  # above any pid (pid_max is at most 2**22) and any call number
_CLONE_THREAD = 0x00010000
_AF_UNIX, _SOCK_STREAM, _SOCK_TYPE_MASK = 1, 1, 0xF
_PRIO_PROCESS, _IOPRIO_WHO_PROCESS = 0, 1
_F_SETFL, _F_SETOWN, _F_SETSIG, _F_SETOWN_EX, _O_ASYNC = 4, 8, 10, 15, 0o20000
_FIOASYNC, _FIOSETOWN, _SIOCSPGRP = 0x5452, 0x8901, 0x8902
_O_TMPFILE = 0o20000000  # __O_TMPFILE, without the O_DIRECTORY bit that O_TMPFILE adds
_LOW_32 = 0xFFFFFFFF  # ``unsigned int`` arguments: the kernel ignores the upper half of the register

SECCOMP_RULE_GROUPS = {
    "new_programs": ("fork", "vfork", "execve", "execveat"),
    "other_processes": ("ptrace", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
                        "pidfd_getfd", "process_vm_readv", "process_vm_writev", "kcmp", "process_madvise",
                        "process_mrelease", "setsid"),
    "self_only_calls": (),  # argument rules: see _argument_rules
    "signal_driven_io": (),
    "sockets": ("socket", "connect", "bind", "listen", "accept", "accept4"),
    "socketpair_types": (),
    "descriptor_passing": ("sendmsg", "sendmmsg"),
    "anonymous_files": ("memfd_create", "memfd_secret"),
    "ipc_objects": ("shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
                    "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
                    "mq_getsetattr"),
    "watching": ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark"),
    "kernel_admin": ("mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "mount_setattr", "move_mount",
                     "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mknod", "mknodat", "bpf",
                     "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "io_uring_setup",
                     "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load", "init_module",
                     "finit_module", "delete_module", "reboot", "swapon", "swapoff", "personality", "acct",
                     "settimeofday", "clock_settime", "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at",
                     "quotactl", "syslog", "vhangup", "sethostname", "setdomainname", "seccomp"),
}
"""The launcher's program, by what each group keeps a suite from doing: calls denied outright
(argument rules are added by ``_argument_rules``). Each group has a start-up canary that fails
when the group is missing (``selfcheck.py``); ``seccomp_programs(omit=...)`` builds a program
without some, for the test that shows the start-up check refuses it."""

SECCOMP_DENIED = tuple(name for names in SECCOMP_RULE_GROUPS.values() for name in names)
"""Calls the launcher's program denies outright."""

SECCOMP_SELF_ONLY = (
    "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
    "migrate_pages", "move_pages", "get_robust_list",
)
"""Calls whose first argument is a pid: allowed only with 0, the caller itself."""


def _libseccomp():
    """libseccomp's Python module from the interpreter's site-packages (the program runs with -S), or None."""
    import site  # under -S importing site only defines its helpers; sys.path is restored below

    saved = list(sys.path)
    try:
        sys.path.extend(site.getsitepackages())
        import seccomp
    except ImportError:
        return None
    finally:
        sys.path[:] = saved
    sys.modules.pop("seccomp", None)  # not importable by the code under test through the cache
    return seccomp


def _argument_rules(sc):
    """{group: (call, argument conditions) pairs}, each denied when all its conditions hold."""
    return {
        "self_only_calls": [(name, (sc.Arg(0, sc.NE, 0),)) for name in SECCOMP_SELF_ONLY] + [
            ("setpriority", (sc.Arg(0, sc.NE, _PRIO_PROCESS),)), ("setpriority", (sc.Arg(1, sc.NE, 0),)),
            ("ioprio_set", (sc.Arg(0, sc.NE, _IOPRIO_WHO_PROCESS),)), ("ioprio_set", (sc.Arg(1, sc.NE, 0),))],
        "signal_driven_io": [
            ("fcntl", (sc.Arg(1, sc.MASKED_EQ, _LOW_32, _F_SETFL), sc.Arg(2, sc.MASKED_EQ, _O_ASYNC, _O_ASYNC)))] + [
            ("fcntl", (sc.Arg(1, sc.MASKED_EQ, _LOW_32, cmd),)) for cmd in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX)] + [
            ("ioctl", (sc.Arg(1, sc.MASKED_EQ, _LOW_32, cmd),)) for cmd in (_FIOASYNC, _FIOSETOWN, _SIOCSPGRP)],
        "socketpair_types": [("socketpair", (sc.Arg(0, sc.NE, _AF_UNIX),))] + [
            ("socketpair", (sc.Arg(1, sc.MASKED_EQ, _SOCK_TYPE_MASK, kind),))
            for kind in range(_SOCK_TYPE_MASK + 1) if kind != _SOCK_STREAM],
        # a file with no name: only its descriptors hold it, and they can be hidden (see docs/oracle.md)
        "anonymous_files": [("open", (sc.Arg(1, sc.MASKED_EQ, _O_TMPFILE, _O_TMPFILE),)),
                            ("openat", (sc.Arg(2, sc.MASKED_EQ, _O_TMPFILE, _O_TMPFILE),))],
    }


def _launcher_rules(sc, omit=()):
    """(call, argument conditions) pairs of every group but ``omit``, each denied when all its conditions hold."""
    arguments = _argument_rules(sc)
    rules = []
    for group, names in SECCOMP_RULE_GROUPS.items():
        if group not in omit:
            rules += [(name, ()) for name in names] + arguments.get(group, [])
    return rules


SECCOMP_CHILD_RULE_GROUPS = ("threads_only", "signals_to_self", "own_process_group")
"""The child program's groups (it names the child's pid, so each child adds it after fork)."""


def _child_rules(sc, omit=()):
    rules = {
        "own_process_group": [("setpgid", ())],
        "threads_only": [("clone", (sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0),))],
        "signals_to_self": [("kill", (sc.Arg(0, sc.NE, _PID_SENTINEL),)), ("tgkill", (sc.Arg(0, sc.NE, _PID_SENTINEL),))],
    }
    return [rule for group in SECCOMP_CHILD_RULE_GROUPS if group not in omit for rule in rules[group]]


def _export(sc, rules, enosys=()):
    """Raw BPF of a default-allow filter denying ``rules`` with EPERM (and ``enosys`` with ENOSYS)."""
    filt = sc.SyscallFilter(sc.ALLOW)
    filt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    filt.set_attr(sc.Attr.CTL_OPTIMIZE, 2)  # a binary tree of call numbers: every call of every child walks it
    for name, conditions in rules:
        try:
            filt.add_rule(sc.ERRNO(errno.EPERM), name, *conditions)
        except (ValueError, RuntimeError):
            if name not in _NEWER_THAN_LIBSECCOMP:
                raise
    for name in enosys:
        filt.add_rule(sc.ERRNO(errno.ENOSYS), name)
    read_end, write_end = os.pipe()  # a program is at most 4096 instructions (32 KiB): it fits the pipe
    try:
        with os.fdopen(write_end, "wb") as sink:
            filt.export_bpf(sink)
        return _read_all(read_end)
    finally:
        os.close(read_end)


def seccomp_sentinel_offsets(program):
    """Byte offsets of the 32-bit constants in ``program`` that hold the pid sentinel."""
    return [8 * i + 4 for i in range(len(program) // 8) if struct.unpack_from("=I", program, 8 * i + 4)[0] == _PID_SENTINEL]


_NEWER_THAN_LIBSECCOMP = ("memfd_secret",)
"""Calls an older libseccomp may not know by name (it then cannot emit them, nor can glibc call them)."""


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _build_in_helper(omit):
    """In a short-lived forked helper: import libseccomp, build both programs, send them back.

    Neither libseccomp nor the modules it pulls in are ever mapped in the fork server: every
    fork of the launcher, and of every child after it, would copy them (measured: +15-35 us on a
    fork of 430 us, load average 15).
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            sc = _libseccomp()
            if sc is not None:
                enosys = ("clone3",) + (() if "anonymous_files" in omit else ("openat2",))  # openat2's flags: in memory
                launcher = _export(sc, _launcher_rules(sc, omit), enosys=enosys)
                child = _export(sc, _child_rules(sc, omit))
                data = struct.pack("=II", len(launcher), len(child)) + launcher + child
                while data:
                    data = data[os.write(write_end, data):]
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        data = _read_all(read_end)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    if len(data) < 8:
        return None
    launcher_len, child_len = struct.unpack_from("=II", data)
    return data[8 : 8 + launcher_len], data[8 + launcher_len : 8 + launcher_len + child_len]


def seccomp_programs(omit=()):
    """(launcher program, child program) as raw BPF (8 bytes per instruction), built by libseccomp;
    ``omit`` names groups of ``SECCOMP_RULE_GROUPS`` to leave out (only the self-check's test does).

    Call it before entering a new PID namespace (its helper would be the namespace's first
    process, and a namespace whose first process has ended takes no more). Raises OSError naming
    the fix when they cannot be built here.
    """
    if os.uname().machine != "x86_64":
        raise OSError(errno.ENOSYS, "the seccomp rules are written for x86_64 only")
    programs = _build_in_helper(tuple(omit))
    if programs is None:
        raise OSError(errno.ENOSYS, "libseccomp's Python module is missing: apt-get install python3-seccomp")
    return programs


def _prepared(program, pid_offsets):
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(buf)), 16)
    return buf, fprog, sys_prctl_args(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog)), pid_offsets


def seccomp_prepare(programs, child_names_pid=True):
    """Ready both ``seccomp_programs()`` once (in the fork server): {"launcher": prepared, "child": prepared}.

    The buffers are ctypes memory that a forked child inherits at the same address; a child only
    writes its pid over the sentinel (``seccomp_install``), so installing costs it a few small
    writes and one call. Raises OSError when the sentinel went astray.
    """
    launcher, child = programs
    offsets = seccomp_sentinel_offsets(child)
    if (child_names_pid and not offsets) or seccomp_sentinel_offsets(launcher):
        raise OSError(errno.EINVAL, "libseccomp placed the pid sentinel unexpectedly")
    return {"launcher": _prepared(launcher, []), "child": _prepared(child, offsets)}


def seccomp_install(prepared, own_pid):
    """Install a prepared program with ``own_pid`` in the sentinel's places, on this process and its future threads.

    Needs no_new_privs, which the launcher sets once (``sandbox_confine_launcher``) for its children.
    """
    buf, _, install_args, pid_offsets = prepared
    for offset in pid_offsets:
        struct.pack_into("=I", buf, offset, own_pid)
    sys_prctl_prepared(install_args)
