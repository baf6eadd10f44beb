"""Namespaces for the fork server and the per-suite confinement of each forked child.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``); it calls ``landlock_*`` and
``seccomp_*`` names defined by those modules' sources. Names starting with ``sandbox_`` are its
interface.

Two stages:

1. ``sandbox_isolate_server`` runs once in the fork server: a new network namespace (no
   interface up), a private mount namespace whose mounts are all read-only, and a size-limited
   tmpfs for the scratch directories.
2. ``sandbox_prepare_server`` sets, once, what children inherit (stdio, signals, environment,
   rlimits but CPU); ``sandbox_confine_launcher`` confines, once, the launcher process that forks
   every suite's child (uid/gid nobody, Landlock); ``sandbox_confine_child`` runs in each forked
   child before any untrusted code: own process group, CPU rlimit, then seccomp (last, since it
   forbids some calls made before it).
"""

import ctypes
import math
import os
import resource
import signal

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .landlock import (
        landlock_abi, landlock_build_ruleset, landlock_device_access, landlock_read_only_access,
        landlock_read_write_access, landlock_restrict_self,
    )
    from .seccomp import seccomp_install, seccomp_prepare, seccomp_supported
    from .syscalls import sys_check, sys_libc, sys_prctl, sys_prctl_args, sys_prctl_prepared
except ImportError:
    pass

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
_NR_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 0x1
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38

def _mount(source, target, fstype, flags, data):
    enc = (lambda s: None if s is None else s.encode())
    sys_check(sys_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)))


def _mount_setattr(path, flags, attr_set, attr_clr):
    attr = ctypes.create_string_buffer((attr_set).to_bytes(8, "little") + attr_clr.to_bytes(8, "little") + bytes(16), 32)
    sys_check(sys_libc.syscall(ctypes.c_long(_NR_MOUNT_SETATTR), ctypes.c_long(_AT_FDCWD), path.encode(),
                         ctypes.c_long(flags), attr, ctypes.c_long(32)))


_DISABLED = "disabled by the caller"
SANDBOX_NAMESPACE_LAYERS = ("network_namespace", "mount_namespace", "read_only_mounts", "scratch_tmpfs")
SANDBOX_LANDLOCK_LAYERS = ("landlock_filesystem", "landlock_network", "landlock_scope")


def sandbox_isolate_server(scratch_root, scratch_mb, disabled=()):
    """Enter fresh network and mount namespaces; returns (active protection names, {name: why missing}).

    Disabling any of the namespace layers skips all of them (they are set up together).
    """
    active, missing = [], {}
    if set(disabled) & set(SANDBOX_NAMESPACE_LAYERS):
        return active, {name: _DISABLED for name in SANDBOX_NAMESPACE_LAYERS}
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWNS | _CLONE_NEWNET | (0 if uid == 0 else _CLONE_NEWUSER)
    try:
        sys_check(sys_libc.unshare(ctypes.c_int(flags)))
        if uid != 0:
            with open("/proc/self/setgroups", "w") as fh:
                fh.write("deny")
            with open("/proc/self/uid_map", "w") as fh:
                fh.write(f"{uid} {uid} 1")
            with open("/proc/self/gid_map", "w") as fh:
                fh.write(f"{gid} {gid} 1")
    except OSError as exc:
        why = f"unshare failed: {exc}"
        for name in ("network_namespace", "mount_namespace", "read_only_mounts", "scratch_tmpfs"):
            missing[name] = why
        return active, missing
    active += ["network_namespace", "mount_namespace"]
    try:
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)
        _mount("tmpfs", scratch_root, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, f"size={int(scratch_mb)}m,mode=0755")
        active.append("scratch_tmpfs")
    except OSError as exc:
        missing["scratch_tmpfs"] = f"tmpfs mount failed: {exc}"
        missing["read_only_mounts"] = "needs the scratch tmpfs (the scratch dir must stay writable)"
        return active, missing
    try:
        _mount_setattr("/", _AT_RECURSIVE, _MOUNT_ATTR_RDONLY, 0)
        _mount_setattr(scratch_root, 0, 0, _MOUNT_ATTR_RDONLY)
        active.append("read_only_mounts")
    except OSError as exc:
        missing["read_only_mounts"] = f"mount_setattr failed: {exc}"
    return active, missing


SANDBOX_WRITABLE_DEVICES = ("/dev/null", "/dev/zero")


def sandbox_child_plan(read_paths, scratch_root, drop_uid, disabled=()):
    """What each child will apply, prepared once in the server: (plan, active names, {name: why missing}).

    The Landlock ruleset (read-only allow-list, read/write below ``scratch_root``) is built here and
    enforced by the launcher, whose children inherit it; the seccomp programs are built here, the
    launcher installs the base one and each child its own, with its pid patched in. Granting
    the whole scratch root is as tight as granting the suite's own directory, because each server
    has its own scratch root and runs one suite at a time, removing its directory afterwards.
    Disabling any Landlock layer skips all three.
    """
    disabled = set(disabled)
    if "unprivileged_uid" in disabled:
        drop_uid = False
    active = ["rlimits", "cpu_time_limit", "wall_deadline", "process_group_kill"]
    missing = {}
    plan = {"drop_uid": drop_uid, "landlock_ruleset": None, "seccomp": None,
            "pdeathsig": sys_prctl_args(_PR_SET_PDEATHSIG, signal.SIGKILL)}
    if drop_uid:
        active.append("unprivileged_uid")
    elif "unprivileged_uid" in disabled:
        missing["unprivileged_uid"] = _DISABLED
    else:
        missing["unprivileged_uid"] = "the oracle is not running as root, so it cannot switch to uid nobody"
    abi = 0 if disabled & set(SANDBOX_LANDLOCK_LAYERS) else landlock_abi()
    if abi > 0:
        rules = []
        for path, rights in [(p, landlock_read_only_access(abi)) for p in read_paths] + [
                (scratch_root, landlock_read_write_access(abi))]:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            if path in SANDBOX_WRITABLE_DEVICES:
                rights = landlock_device_access(abi)
            rules.append((fd, os.path.isdir(path), rights))
        try:
            plan["landlock_ruleset"], _ = landlock_build_ruleset(rules, abi)
        finally:
            for fd, _, _ in rules:
                os.close(fd)
        active += ["landlock_filesystem", "no_new_privs"]
        if abi >= 4:
            active.append("landlock_network")
        else:
            missing["landlock_network"] = f"Landlock ABI {abi} < 4"
        if abi >= 6:
            active.append("landlock_scope")
        else:
            missing["landlock_scope"] = f"Landlock ABI {abi} < 6"
    else:
        why = _DISABLED if disabled & set(SANDBOX_LANDLOCK_LAYERS) else "Landlock is not available in this kernel"
        for name in SANDBOX_LANDLOCK_LAYERS:
            missing[name] = why
    if "seccomp" in disabled:
        missing["seccomp"] = _DISABLED
    elif seccomp_supported():
        plan["seccomp"] = seccomp_prepare()
        active += ["seccomp", "no_new_privs"]
    else:
        missing["seccomp"] = "the seccomp filter is written for x86_64 only"
    if "no_new_privs" not in active:
        missing["no_new_privs"] = "set together with Landlock or seccomp, both of which are off"
    return plan, sorted(set(active)), missing


def _set_limit(res, soft, hard):
    current_hard = resource.getrlimit(res)[1]
    if current_hard != resource.RLIM_INFINITY:  # only root may raise a hard limit
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.setrlimit(res, (soft, hard))


def sandbox_prepare_server(limits, scratch_dir, timer_handler):
    """Once, in the fork server: everything children may simply inherit, so that a fork stays cheap.

    Every page a child touches after fork is copied, so per-child work is kept to what must differ
    per child (process group, CPU limit, seccomp enforcement). Inherited: stdio
    on /dev/null, signal dispositions, the environment, and the rlimits other than CPU (which
    counts the server's own time, so it is set per child).
    """
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes raise OSError(EFBIG) instead of killing
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    for sig in (signal.SIGPROF, signal.SIGALRM):  # the per-test timers (armed only in children)
        signal.signal(sig, timer_handler)
    devnull = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    tz = os.environ.get("TZ")
    os.environ.clear()
    os.environ.update({"HOME": scratch_dir, "TMPDIR": scratch_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    if tz is not None:
        os.environ["TZ"] = tz
    for res, value in ((resource.RLIMIT_AS, limits["memory_mb"] << 20), (resource.RLIMIT_FSIZE, limits["file_size_mb"] << 20),
                       (resource.RLIMIT_NOFILE, limits["open_files"]), (resource.RLIMIT_NPROC, limits["processes"]),
                       (resource.RLIMIT_CORE, 0)):
        _set_limit(res, value, value)


def sandbox_confine_launcher(plan, sandbox_uid, sandbox_gid):
    """Confine the launcher (the process that forks each suite's child) once; children inherit it all.

    uid/gid nobody first (changing credentials clears the parent-death signal), then the
    parent-death signal (the launcher dies with its fork server), Landlock, and the base seccomp
    filter (everything but the rules that would stop the launcher forking). Raises OSError if a
    planned layer fails.
    """
    if plan["drop_uid"]:
        os.setgroups([])
        os.setresgid(sandbox_gid, sandbox_gid, sandbox_gid)
        os.setresuid(sandbox_uid, sandbox_uid, sandbox_uid)
    sys_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if plan["landlock_ruleset"] is not None:
        landlock_restrict_self(plan["landlock_ruleset"])  # sets no_new_privs too
    if plan["seccomp"] is not None:
        sys_prctl(_PR_SET_NO_NEW_PRIVS, 1)  # inherited: each child's seccomp filter needs it
        seccomp_install(plan["seccomp"]["launcher"], os.getpid())


def sandbox_confine_child(plan, limits):
    """Confine a freshly forked suite child, before any untrusted code; raises OSError if a layer fails.

    What must differ per child: its own process group, a CPU rlimit counting from zero, the
    parent-death signal (fork clears it), no inherited descriptors, and seccomp (last, since it
    forbids ``setpgid``).
    """
    os.setpgid(0, 0)
    cpu_cap = int(math.ceil(limits["suite_wall_s"])) + 1
    _set_limit(resource.RLIMIT_CPU, cpu_cap, cpu_cap + 1)  # SIGXCPU at the soft limit
    sys_prctl_prepared(plan["pdeathsig"])
    os.closerange(3, 1 << 16)  # the child reports through shared memory, so no descriptor stays open
    if plan["seccomp"] is not None:
        seccomp_install(plan["seccomp"]["child"], os.getpid())
