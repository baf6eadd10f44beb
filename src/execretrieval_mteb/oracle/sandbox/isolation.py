"""Namespaces and scratch space of a worker, and the confinement of its launcher and of each child.

Sandbox-side module: stdlib only and no package imports, because its source text is
concatenated into the sandbox program (see ``program.py``); it calls ``landlock_*``,
``seccomp_*`` and ``sys_*`` names defined by those modules' sources. Names starting with
``sandbox_`` are its interface.

Stages:

1. ``sandbox_isolate_server`` runs once in the fork server: new network (no interface up), IPC,
   PID, UTS (host name ``sandbox``) and mount namespaces; a new root holding only the allow-listed paths and the scratch root,
   every mount read-only but a small tmpfs at the scratch root.
2. ``sandbox_child_plan`` prepares, once, what the launcher and the children apply: the uid of
   this worker, the Landlock ruleset, the seccomp programs. The plan is plain data: the
   launcher is a fresh interpreter (``launcher.py``), which readies it (``sandbox_ready_plan``).
3. ``sandbox_launcher_environment`` and ``sandbox_prepare_launcher`` set, once, what children
   inherit (environment, signals); stdio is the server's /dev/null.
4. ``sandbox_confine_launcher`` confines, once, the launcher that forks every suite's child:
   rlimits, the worker's own uid, Landlock, the launcher's seccomp program. The launcher is the
   first process of the worker's PID namespace, so nothing outside the worker can name it or its
   children, and they all die with it.
5. ``sandbox_confine_child`` runs in each forked child before any untrusted code: own process
   group, CPU rlimit, then its own seccomp program (last, since it forbids ``setpgid``).

``SandboxScratch`` gives each suite a fresh tmpfs when the last one left anything behind (or
changed the directory, or used any of its blocks or inodes).
"""

import ctypes
import math
import os
import signal

try:  # imported as part of the package (tests, type checkers); in the sandbox program the names are globals
    from .landlock import (
        landlock_abi, landlock_build_ruleset, landlock_device_access, landlock_read_only_access,
        landlock_read_write_access, landlock_restrict_self,
    )
    from .seccomp import seccomp_install, seccomp_prepare, seccomp_programs
    from .syscalls import (
        SYS_RLIM_INFINITY, SYS_RLIMITS, SysLimitReader, sys_check, sys_getrlimit, sys_libc, sys_prctl,
        sys_prctl_args, sys_prctl_prepared, sys_rlimit_args, sys_rlimit_prepared, sys_setrlimit,
    )
except ImportError:
    pass

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = (
    0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
SANDBOX_HOST_NAME = b"sandbox"
"""The host name a suite sees (``uname``, ``socket.gethostname``): the same on every machine."""
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x1000, 0x4000, 0x40000
_NR_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
_MNT_DETACH = 2
_NR_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 0x1
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38

_DISABLED = "disabled by the caller"
SANDBOX_NAMESPACE_LAYERS = (
    "network_namespace", "mount_namespace", "ipc_namespace", "pid_namespace", "uts_namespace", "minimal_root",
    "read_only_mounts", "scratch_tmpfs", "fresh_scratch",
)
SANDBOX_LANDLOCK_LAYERS = ("landlock_filesystem", "landlock_network", "landlock_scope")
SANDBOX_SECCOMP_LAYERS = ("seccomp", "self_only_process_calls", "stream_socketpair_only", "no_ipc_objects",
                          "no_lingering_files")
SANDBOX_WRITABLE_DEVICES = ("/dev/null", "/dev/zero")


def _encode(text):
    return None if text is None else text.encode()


def _mount(source, target, fstype, flags, data):
    sys_check(sys_libc.mount(_encode(source), _encode(target), _encode(fstype), ctypes.c_ulong(flags), _encode(data)))


def _mount_setattr(path, flags, attr_set, attr_clr):
    attr = ctypes.create_string_buffer(attr_set.to_bytes(8, "little") + attr_clr.to_bytes(8, "little") + bytes(16), 32)
    sys_check(sys_libc.syscall(ctypes.c_long(_NR_MOUNT_SETATTR), ctypes.c_long(_AT_FDCWD), path.encode(),
                               ctypes.c_long(flags), attr, ctypes.c_long(32)))


def _covered(path, bound):
    return any(path == b or path.startswith(b.rstrip("/") + "/") for b in bound)


def _populate_root(new_root, read_paths, scratch_root):
    """Below ``new_root`` (a fresh tmpfs): each allow-listed path bind-mounted at its own place (a
    symlink recreated as one), and an empty directory where the scratch root goes."""
    bound = []
    for path in sorted(set(read_paths), key=lambda p: (p.count("/"), p)):
        if _covered(path, bound) or not os.path.lexists(path):
            continue
        target = new_root + path
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(path):
            os.symlink(os.readlink(path), target)
            continue
        if os.path.isdir(path):
            os.makedirs(target, exist_ok=True)
        else:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        _mount(path, target, None, _MS_BIND | _MS_REC, None)
        bound.append(path)
    os.makedirs(new_root + scratch_root, exist_ok=True)


def _pivot_into(new_root):
    """Make ``new_root`` this mount namespace's root and drop the old one (pivot_root(2)'s "." trick)."""
    os.chdir(new_root)
    sys_check(sys_libc.syscall(ctypes.c_long(_NR_PIVOT_ROOT[os.uname().machine]), b".", b"."))
    sys_check(sys_libc.umount2(b".", ctypes.c_int(_MNT_DETACH)))
    os.chdir("/")


def sandbox_isolate_server(scratch_root, read_paths, disabled=()):
    """Enter fresh network, IPC, PID, UTS and mount namespaces; returns (active names, {name: why missing}, /proc fd).

    The PID namespace applies to the processes the server forks afterwards: its first child (the
    launcher) is process 1 there. The mount namespace gets a new root, a tmpfs holding only
    ``read_paths`` (bind-mounted) and the scratch root, so nothing else of the host can even be
    named (``stat``, ``readlink`` and listing included); the server keeps a descriptor of the
    host's /proc (closed in the launcher) to find and kill its children. Every mount is then made
    read-only but the scratch root's own small tmpfs. Disabling any namespace layer skips all of
    them (they are set up together).
    """
    active, missing = [], {}
    proc_fd = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    if set(disabled) & set(SANDBOX_NAMESPACE_LAYERS):
        return active, {name: _DISABLED for name in SANDBOX_NAMESPACE_LAYERS}, proc_fd
    uid, gid = os.geteuid(), os.getegid()
    flags = (_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID | _CLONE_NEWUTS
             | (0 if uid == 0 else _CLONE_NEWUSER))
    try:
        sys_check(sys_libc.unshare(ctypes.c_int(flags)))
        if uid != 0:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as fh:
                    fh.write(text)
        sys_check(sys_libc.sethostname(SANDBOX_HOST_NAME, ctypes.c_size_t(len(SANDBOX_HOST_NAME))))
        sys_check(sys_libc.setdomainname(b"(none)", ctypes.c_size_t(6)))
    except OSError as exc:
        return active, {name: f"unshare failed: {exc}" for name in SANDBOX_NAMESPACE_LAYERS}, proc_fd
    active += ["network_namespace", "mount_namespace", "ipc_namespace", "pid_namespace", "uts_namespace"]
    try:
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)
        if os.uname().machine not in _NR_PIVOT_ROOT:
            missing["minimal_root"] = f"pivot_root's number on {os.uname().machine} is not known here"
        else:
            _mount("tmpfs", scratch_root, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,nr_inodes=4096,mode=0755")
            _populate_root(scratch_root, read_paths, scratch_root)
            _pivot_into(scratch_root)
            active.append("minimal_root")
    except OSError as exc:
        return active, {name: f"new root failed: {exc}" for name in SANDBOX_NAMESPACE_LAYERS if name not in active}, proc_fd
    try:
        _mount("tmpfs", scratch_root, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "size=1m,nr_inodes=64,mode=0755")
        active += ["scratch_tmpfs", "fresh_scratch"]
    except OSError as exc:
        for name in ("scratch_tmpfs", "fresh_scratch"):
            missing[name] = f"tmpfs mount failed: {exc}"
        missing["read_only_mounts"] = "needs the scratch tmpfs (the scratch dir must stay writable)"
        return active, missing, proc_fd
    try:
        _mount_setattr("/", _AT_RECURSIVE, _MOUNT_ATTR_RDONLY, 0)
        _mount_setattr(scratch_root, 0, 0, _MOUNT_ATTR_RDONLY)
        active.append("read_only_mounts")
    except OSError as exc:
        missing["read_only_mounts"] = f"mount_setattr failed: {exc}"
    return active, missing, proc_fd


class SandboxScratch:
    """The suites' working directory: a tmpfs of its own, replaced whenever a suite left anything in it.

    Replacing a mount (detach the old one, mount a new one) costs the same whatever the suite
    wrote, so no content (deep trees, odd modes, full disks) can defeat or slow the clean-up; an
    untouched scratch (most suites write nothing) is kept. Without the tmpfs layers it falls back
    to emptying a plain directory, which such content can defeat.
    """

    def __init__(self, path, limits, owner, mounts, host_root=None):
        """``host_root``: (descriptor of its parent, name) of the host directory the host made as the
        worker's scratch root, opened before the server's root was replaced (``leave_host``)."""
        self.path, self.owner, self.mounts, self.host_root = path, owner, mounts, host_root
        self.options = (f"size={int(limits['scratch_mb'])}m,nr_inodes={int(limits['scratch_files'])},"
                        f"mode=0700,uid={owner[0]},gid={owner[1]}")
        self.mounted = False
        self._as_mounted = None

    def fresh(self):
        """Make sure the directory is empty, owned by the sandbox uid, mode 0700; raises OSError if it cannot."""
        if self.mounted and self._untouched():
            return
        if not self.mounts:
            return self._empty_plain_directory()
        if self.mounted:
            sys_check(sys_libc.umount2(self.path.encode(), ctypes.c_int(_MNT_DETACH)))
            self.mounted = False
        os.makedirs(self.path, 0o700, exist_ok=True)
        _mount("tmpfs", self.path, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, self.options)
        self.mounted = True
        self._as_mounted = self._state()

    def leave_host(self):
        """Remove the host's (empty) scratch root directory as the server ends: the host removes it
        too, but not when it died first."""
        if self.host_root is not None:
            try:
                os.rmdir(self.host_root[1], dir_fd=self.host_root[0])
            except OSError:
                pass

    def _state(self):
        """The root's owner, mode, links, size (on tmpfs, 20 bytes per entry) and change times, and
        the file system's free blocks and inodes: a file made and removed, an attribute or extended
        attribute set, a file with no name (``O_TMPFILE``) or one unlinked but still held open, all
        change one of them."""
        st = os.lstat(self.path)
        fs = os.statvfs(self.path)
        return (st.st_uid, st.st_gid, st.st_mode, st.st_nlink, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                fs.f_bfree, fs.f_ffree)

    def _untouched(self):
        """One ``lstat`` on a fresh tmpfs; a plain directory is listed too (its size says nothing)."""
        if self._as_mounted is not None:
            return self._state() == self._as_mounted
        st = os.lstat(self.path)
        if (st.st_uid, st.st_gid, st.st_mode & 0o7777) != (self.owner[0], self.owner[1], 0o700):
            return False
        with os.scandir(self.path) as entries:
            return next(entries, None) is None

    def _empty_plain_directory(self):
        import shutil  # only here: it loads the bz2 and lzma libraries, which would make every fork dearer

        if os.path.lexists(self.path):
            if os.path.isdir(self.path) and not os.path.islink(self.path):
                shutil.rmtree(self.path)
            else:
                os.unlink(self.path)
        os.mkdir(self.path, 0o700)
        os.chown(self.path, *self.owner)
        self.mounted = True  # "untouched" checks apply from now on


def sandbox_worker_uid(config):
    """The uid (and gid) this worker's code runs as: its own, unless the oracle is not root.

    ``uid_base`` plus this server's pid: pids are unique among live processes, so no two live
    workers, of this oracle or of another one on the machine, share a uid; their process limits,
    and the right to touch each other's processes, are then separate.
    """
    return config["uid_base"] + os.getpid()


def sandbox_seccomp_programs(disabled=(), omit=()):
    """The seccomp programs (``seccomp_programs``, without the rule groups ``omit``), or why there are
    none; before ``sandbox_isolate_server``."""
    if set(disabled) & set(SANDBOX_SECCOMP_LAYERS):
        return _DISABLED
    try:
        return seccomp_programs(omit)
    except OSError as exc:
        return exc.strerror or str(exc)


def sandbox_child_plan(read_paths, scratch_root, drop_uid, uid, seccomp, disabled=(), omit=()):
    """What the launcher and each child will apply, prepared once in the server: (plan, active, {name: why missing}).

    The plan is plain data: the launcher receives it marshalled, in its spec (``_Launcher``). The
    Landlock ruleset (read-only allow-list, read/write below ``scratch_root``) is built here and its
    descriptor handed to the launcher, which enforces it and whose children inherit it; the seccomp programs
    (``seccomp``, from ``sandbox_seccomp_programs``, or why there are none) are checked here and
    passed as hex, the launcher installs its own and each child adds its own, with its pid in it.
    Granting the whole scratch root is as tight as granting the suite's own directory, because each
    worker has its own scratch root and runs one suite at a time in a fresh tmpfs. Disabling any
    Landlock (or seccomp) layer skips all of them.
    """
    disabled = set(disabled)
    if "unprivileged_uid" in disabled or "uid_per_worker" in disabled:
        drop_uid = False
    active = ["rlimits", "cpu_time_limit", "wall_deadline", "process_group_kill", "launcher_check", "clean_launcher"]
    missing = {}
    plan = {"drop_uid": drop_uid, "uid": uid, "landlock_ruleset": None, "seccomp": None}
    if drop_uid:
        active += ["unprivileged_uid", "uid_per_worker"]
    else:
        why = _DISABLED if disabled & {"unprivileged_uid", "uid_per_worker"} else \
            "the oracle is not running as root, so it cannot switch uids"
        missing.update({"unprivileged_uid": why, "uid_per_worker": why})
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
            plan["landlock_ruleset"], landlock_active = landlock_build_ruleset(rules, abi)
        finally:
            for fd, _, _ in rules:
                os.close(fd)
        active += landlock_active
        for name in SANDBOX_LANDLOCK_LAYERS:
            if name not in landlock_active:
                missing[name] = f"Landlock ABI {abi} is too old for it"
    else:
        why = _DISABLED if disabled & set(SANDBOX_LANDLOCK_LAYERS) else "Landlock is not available in this kernel"
        for name in SANDBOX_LANDLOCK_LAYERS:
            missing[name] = why
    try:
        if isinstance(seccomp, str):
            raise OSError(0, seccomp)
        names_pid = "signals_to_self" not in omit
        seccomp_prepare(seccomp, names_pid)  # raises if libseccomp put the pid sentinel astray
        plan["seccomp"] = [program.hex() for program in seccomp]
        plan["seccomp_names_pid"] = names_pid
        active += list(SANDBOX_SECCOMP_LAYERS) + ["no_new_privs"]
    except OSError as exc:
        missing.update({name: exc.strerror or str(exc) for name in SANDBOX_SECCOMP_LAYERS})
    if "no_new_privs" not in active:
        missing["no_new_privs"] = "set together with Landlock or seccomp, both of which are off"
    return plan, sorted(set(active)), missing


def sandbox_ready_plan(plan, limits):
    """In the launcher, once: the plan with what must live in the launcher's own memory made ready
    (seccomp buffers, the CPU rlimit's and prctl's arguments), so that a child only uses them."""
    ready = dict(plan, pdeathsig=sys_prctl_args(_PR_SET_PDEATHSIG, signal.SIGKILL), cpu_limit=_child_cpu_limit(limits))
    if plan["seccomp"] is not None:
        ready["seccomp"] = seccomp_prepare([bytes.fromhex(program) for program in plan["seccomp"]], plan["seccomp_names_pid"])
    return ready


def sandbox_launcher_environment(scratch_dir, hash_seed):
    """The launcher's environment, which every child inherits: a scratch HOME and TMPDIR, a plain
    PATH and locale, the host's TZ. ``PYTHONHASHSEED`` (the server's, so that set and dict orders
    are those of every other worker) is for the launcher's interpreter start only: the launcher
    removes it from its environment (``sandbox_prepare_launcher``)."""
    env = {"HOME": scratch_dir, "TMPDIR": scratch_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    if os.environ.get("TZ") is not None:
        env["TZ"] = os.environ["TZ"]
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    return env


def sandbox_prepare_launcher(timer_handler):
    """Once, in the launcher: what children may simply inherit, so that a fork stays cheap.

    Every page a child touches after fork is copied, so per-child work is kept to what must differ
    per child (process group, CPU limit, seccomp). Inherited: signal dispositions, the environment
    (``sandbox_launcher_environment``), stdio on /dev/null (the server's). Resource limits are the
    launcher's (``sandbox_confine_launcher``): the server keeps its own, so that no limit meant for
    the code can hamper its clean-up.
    """
    os.environ.pop("PYTHONHASHSEED", None)  # read at start; the code under test does not see it
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes raise OSError(EFBIG) instead of killing
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    for sig in (signal.SIGPROF, signal.SIGALRM):  # the per-test timers (armed only in children)
        signal.signal(sig, timer_handler)


def _capped(res, soft, hard):
    """(soft, hard) lowered to the current hard limit: only root may raise one."""
    current_hard = sys_getrlimit(res)[1]
    if current_hard != SYS_RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    return soft, hard


def sandbox_launcher_limits(limits):
    """{resource: value} the launcher sets for itself and every child (CPU is set per child)."""
    r = SYS_RLIMITS
    return {
        r["AS"]: limits["memory_mb"] << 20, r["FSIZE"]: limits["file_size_mb"] << 20, r["NOFILE"]: limits["open_files"],
        r["NPROC"]: limits["processes"], r["CORE"]: 0, r["MSGQUEUE"]: 0, r["NICE"]: 0, r["RTPRIO"]: 0, r["MEMLOCK"]: 0,
    }


def _child_cpu_limit(limits):
    """Arguments of the child's CPU rlimit (SIGXCPU at the soft limit), prepared once in the launcher."""
    cap = int(math.ceil(limits["suite_wall_s"])) + 1
    return sys_rlimit_args(SYS_RLIMITS["CPU"], *_capped(SYS_RLIMITS["CPU"], cap, cap + 1))


def sandbox_confine_launcher(plan, limits):
    """Confine the launcher (the process that forks each suite's child) once; children inherit it all.

    Rlimits first (while still root, so hard limits can be set at will), then the worker's uid and
    gid (changing credentials clears the parent-death signal), then the parent-death signal (the
    launcher dies with its fork server), Landlock, and the launcher's seccomp program. Raises
    OSError if a planned layer fails.
    """
    for res, value in sandbox_launcher_limits(limits).items():
        sys_setrlimit(res, *_capped(res, value, value))
    if plan["drop_uid"]:
        os.setgroups([])
        os.setresgid(plan["uid"], plan["uid"], plan["uid"])
        os.setresuid(plan["uid"], plan["uid"], plan["uid"])
    sys_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if plan["landlock_ruleset"] is not None:
        landlock_restrict_self(plan["landlock_ruleset"])  # sets no_new_privs too
    if plan["seccomp"] is not None:
        sys_prctl(_PR_SET_NO_NEW_PRIVS, 1)  # inherited: each child's seccomp program needs it
        seccomp_install(plan["seccomp"]["launcher"], os.getpid())


def sandbox_confine_child(plan):
    """Confine a freshly forked suite child, before any untrusted code; raises OSError if a layer fails.

    What must differ per child: its own process group, a CPU rlimit counting from zero, the
    parent-death signal (fork clears it), no inherited descriptors, and seccomp (last, since it
    forbids ``setpgid``). The per-test timers are armed by the test runner (``_arm`` in ``child.py``).
    """
    os.setpgid(0, 0)
    sys_rlimit_prepared(plan["cpu_limit"])
    sys_prctl_prepared(plan["pdeathsig"])
    os.closerange(3, 1 << 16)  # the child reports through shared memory, so no descriptor stays open
    if plan["seccomp"] is not None:
        seccomp_install(plan["seccomp"]["child"], os.getpid())


_CHECKED_RLIMITS = tuple(SYS_RLIMITS[name] for name in (
    "AS", "CPU", "DATA", "FSIZE", "MEMLOCK", "NOFILE", "NPROC", "SIGPENDING", "STACK"))
"""The limits whose change would reach a child. The others cannot: CORE, MSGQUEUE, NICE and RTPRIO
are already (0, 0) and cannot go lower (MEMLOCK too, but it is checked with the rest), the kernel ignores RSS and LOCKS, and RTTIME only bounds
real-time policies, which RTPRIO 0 forbids. (Each read is a system call of about 2 us here.)"""


def sandbox_own_limits():
    """A function that reads the resource limits of the calling process that a child inherits and
    feels (as bytes: compare two reads). The launcher reads its own after each child: a root server
    without CAP_SYS_RESOURCE may not read another uid's limits (and /proc/PID/limits costs more),
    and no child can forge what the launcher reads of itself."""
    return SysLimitReader(_CHECKED_RLIMITS).read


def sandbox_process_state(pid):
    """What another process could change of a confined one besides its limits: priority, affinity,
    scheduling policy (a real-time priority needs a real-time policy, which RLIMIT_RTPRIO 0 forbids).

    The server takes it of its launcher once confined and compares after every suite.
    """
    return os.getpriority(os.PRIO_PROCESS, pid), os.sched_getaffinity(pid), os.sched_getscheduler(pid)
