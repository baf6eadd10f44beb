"""seccomp-bpf filter through ctypes: no new processes, no foreign signals, no sockets.

Sandbox-side module: stdlib only and no package imports, because its source text is also
concatenated into the sandbox program (see ``program.py``). Names starting with ``seccomp_`` are
its interface.

Denied calls fail with EPERM (Python raises PermissionError, a normal ``ERROR:`` verdict) rather
than killing the process, so the verdict names what the code tried. Threads stay possible:
``clone`` is allowed only with CLONE_THREAD, and ``clone3`` (whose flags live in memory a filter
cannot read) answers ENOSYS so that glibc falls back to ``clone``. ``socket`` is denied for every
family (a path-named unix socket could reach a host service); only an unnamed ``socketpair`` of
the unix family stays (asyncio's self-pipe). Signals may only target the process itself, whose
pid is baked into the filter when it is installed. Two stacked programs (``seccomp_programs``):
the long deny list once in the launcher, a short one per child. x86_64 only; other architectures
report the protection as missing.
"""

import ctypes
import errno
import os
import struct

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .syscalls import sys_prctl_args, sys_prctl_prepared
except ImportError:
    pass

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000
_CLONE_THREAD = 0x00010000
_AF_UNIX = 1
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_OFF_NR, _OFF_ARCH, _OFF_ARG0_LOW = 0, 4, 16

_NR_CLONE, _NR_CLONE3, _NR_SOCKETPAIR, _NR_KILL, _NR_TGKILL, _NR_SETPGID = 56, 435, 53, 62, 234, 109
_DENIED_X86_64 = {
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "ptrace": 101, "tkill": 200,
    "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
    "mount_setattr": 442, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mknod": 133, "mknodat": 259, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 246, "kexec_file_load": 320,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169, "swapon": 167,
    "swapoff": 168, "personality": 135, "acct": 163, "settimeofday": 164, "clock_settime": 227,
    "iopl": 172, "ioperm": 173, "open_by_handle_at": 304, "name_to_handle_at": 303, "quotactl": 179,
    "syslog": 103, "vhangup": 153, "fanotify_init": 300, "sethostname": 170, "setdomainname": 171,
    "seccomp": 317, "socket": 41, "setsid": 112,
}

def seccomp_supported():
    """True on x86_64, the one architecture whose syscall table this filter encodes."""
    return os.uname().machine == "x86_64"


def _insn(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _arch_check():
    """Kill a process making a call of another architecture's table (the numbers would mean other calls)."""
    return [
        _insn(_LD_W_ABS, 0, 0, _OFF_ARCH),
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        _insn(_RET_K, 0, 0, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0, 0, _OFF_NR),
    ]


def _argument_rule(nr, test, deny):
    """"If the call is ``nr``: allow when ``test`` holds for its first argument, else deny" (5 instructions)."""
    return [
        _insn(_JEQ_K, 0, 4, nr),
        _insn(_LD_W_ABS, 0, 0, _OFF_ARG0_LOW),
        _insn(test[0], 0, 1, test[1]),
        _insn(_RET_K, 0, 0, _RET_ALLOW),
        _insn(_RET_K, 0, 0, deny),
    ]


def seccomp_programs():
    """The two BPF programs (8 bytes per instruction) the sandbox stacks.

    Returns (base, child, offsets in child of the two 32-bit constants holding the pid). The base
    program (x32 calls, the deny list, ``clone3``, ``socketpair``) is installed once by the launcher
    and inherited by its children; it leaves ``fork`` through ``clone`` to the launcher. Each child
    then adds the small child program: ``clone`` only with CLONE_THREAD, signals only to its own
    pid (patched in by ``seccomp_install``), no ``setpgid``. Stacked filters all apply, and the
    strictest answer wins.
    """
    deny = _RET_ERRNO | errno.EPERM
    base = _arch_check() + [_insn(_JGE_K, 0, 1, _X32_SYSCALL_BIT), _insn(_RET_K, 0, 0, deny)]
    for nr in sorted(_DENIED_X86_64.values()):
        base += [_insn(_JEQ_K, 0, 1, nr), _insn(_RET_K, 0, 0, deny)]
    base += [_insn(_JEQ_K, 0, 1, _NR_CLONE3), _insn(_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS)]
    base += _argument_rule(_NR_SOCKETPAIR, (_JEQ_K, _AF_UNIX), deny)
    base.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    child = _arch_check() + [_insn(_JEQ_K, 0, 1, _NR_SETPGID), _insn(_RET_K, 0, 0, deny)]
    child += _argument_rule(_NR_CLONE, (_JSET_K, _CLONE_THREAD), deny)
    pid_offsets = []
    for nr in (_NR_KILL, _NR_TGKILL):
        pid_offsets.append(8 * (len(child) + 2) + 4)  # the k field of the rule's test instruction
        child += _argument_rule(nr, (_JEQ_K, 0), deny)
    child.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(base), b"".join(child), pid_offsets


def _prepared(program, pid_offsets):
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(buf)), 16)
    return buf, fprog, sys_prctl_args(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog)), pid_offsets


def seccomp_prepare():
    """Build both filters once (in the fork server): {"launcher": prepared, "child": prepared}.

    The buffers are ctypes memory that a forked child inherits at the same address; a child only
    patches its pid in (``seccomp_install``), so installing costs it two small writes and one call.
    """
    base, child, pid_offsets = seccomp_programs()
    return {"launcher": _prepared(base, []), "child": _prepared(child, pid_offsets)}


def seccomp_install(prepared, own_pid):
    """Install a prepared filter with ``own_pid`` patched in, on this process and its future threads.

    Needs no_new_privs, which the launcher sets once (``sandbox_confine_launcher``) for its children.
    """
    buf, _, install_args, pid_offsets = prepared
    for offset in pid_offsets:
        struct.pack_into("=I", buf, offset, own_pid)
    sys_prctl_prepared(install_args)
