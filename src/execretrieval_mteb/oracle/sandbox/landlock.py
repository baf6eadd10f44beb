"""Landlock through ctypes: deny-by-default filesystem access, TCP denial and signal scoping.

Sandbox-side module: stdlib only and no package imports, because its source text is also
concatenated into the sandbox program (see ``program.py``). Names starting with ``landlock_`` are
its interface.

A ruleset lists what stays allowed; everything else among the "handled" rights is denied for the
calling thread and every process it forks afterwards. Rights are negotiated with the running
kernel's ABI version, so an older kernel gives a weaker, never a failing, sandbox.
"""

import ctypes
import os
import struct

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .syscalls import sys_prctl, sys_syscall
except ImportError:
    pass

_NR_CREATE_RULESET, _NR_ADD_RULE, _NR_RESTRICT_SELF = 444, 445, 446  # same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 14, 1 << 15
_FS_ALL_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_ONLY_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_PR_SET_NO_NEW_PRIVS = 38

def landlock_abi():
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    try:
        return sys_syscall(_NR_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except OSError:
        return 0


def _fs_all(abi):
    return _FS_ALL_BY_ABI[max(v for v in _FS_ALL_BY_ABI if v <= abi)]


def landlock_read_only_access(abi):
    """Rights for an allow-listed read-only tree: read, list, execute (no ioctl on devices)."""
    return (_FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR) & _fs_all(abi)


def landlock_device_access(abi):
    """Rights for a harmless device such as /dev/null: read, write, and open with O_TRUNC."""
    return (_FS_READ_FILE | _FS_WRITE_FILE | _FS_TRUNCATE) & _fs_all(abi)


def landlock_read_write_access(abi):
    """Every filesystem right the kernel knows: for the suite's own scratch directory."""
    return _fs_all(abi)


def landlock_build_ruleset(rules, abi):
    """A ruleset fd allowing ``rules`` (``[(fd, is_dir, access), ...]``, fds opened with O_PATH).

    Built once by the fork server; its launcher enforces it with ``landlock_restrict_self`` and the
    children inherit it. Returns (ruleset fd, protection names it provides).
    """
    handled_fs = _fs_all(abi)
    handled_net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled_fs, handled_net)
    else:
        attr = struct.pack("=Q", handled_fs)
    attr_buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset_fd = sys_syscall(_NR_CREATE_RULESET, attr_buf, len(attr), 0)
    try:
        for fd, is_dir, access in rules:
            access &= handled_fs if is_dir else (handled_fs & _FILE_ONLY_RIGHTS)
            rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
            sys_syscall(_NR_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, rule, 0)
    except BaseException:
        os.close(ruleset_fd)
        raise
    active = ["landlock_filesystem", "no_new_privs"]
    if handled_net:
        active.append("landlock_network")
    if scoped:
        active.append("landlock_scope")
    return ruleset_fd, active


def landlock_restrict_self(ruleset_fd):
    """Enforce the ruleset on this process and its future children; sets no_new_privs (required)."""
    sys_prctl(_PR_SET_NO_NEW_PRIVS, 1)
    sys_syscall(_NR_RESTRICT_SELF, ruleset_fd, 0)
