"""The sandbox program (source text) and the interpreter that runs it.

The fork server runs as root but its children drop to an unprivileged uid of their worker, which
must still be able to read the interpreter's standard library for lazy imports; a virtualenv under
a 0700 home is not readable, so a world-readable system Python is picked instead, preferably one
that can load libseccomp (Debian's python3-seccomp). The child imports nothing from this package:
it receives the concatenated sources of the modules in the ``sandbox`` folder.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources

SANDBOX_MODULES = (
    "pytest_shim.py", "syscalls.py", "landlock.py", "seccomp.py", "isolation.py", "child.py", "launcher.py", "server.py",
)
"""The modules of the ``sandbox`` folder in dependency order; each is stdlib-only and uses the ones before it."""

DEFAULT_READ_PATHS = (
    "/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/localtime", "/etc/ld.so.cache",
    "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
)
"""Read-only allow-list of the sandbox (the interpreter's own sys.path is added to it)."""

SANDBOX_UID_BASE = 0x7E000000
"""Each worker's code runs as uid (and gid) ``SANDBOX_UID_BASE`` + its fork server's pid: no two live
workers share one. The range 2113929216-2118123520 (pids are below 2**22) lies between the ranges
systemd hands to containers and its own reserved ones, so no account or container owns it."""

_FALLBACK_INTERPRETERS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")
_MIN_VERSION = (3, 11)


BOOTSTRAP = 'import sys; exec(compile(sys.argv[1], "<sandbox>", "exec"))'
"""What ``-c`` runs: it compiles the program passed as the next argument and runs it.

Not ``-c PROGRAM`` itself: the interpreter keeps the syntax tree of a ``-c`` (or script) module
alive until the module finishes, which for a fork server is never, and that scatters the objects
every child touches over more pages (measured: about 100 more copy-on-write faults and 0.8 ms
more CPU per suite). ``compile`` frees its tree at once."""


def sandbox_source(name: str) -> str:
    """Source text of one module of the ``sandbox`` folder (e.g. ``pytest_shim.py``)."""
    return resources.files(__package__).joinpath("sandbox", name).read_text(encoding="utf-8")


@functools.cache
def sandbox_program() -> str:
    """Source of the whole sandbox program: the sandbox folder's modules, then the server's entry call."""
    parts = [sandbox_source(name) for name in SANDBOX_MODULES]
    parts.append("import json as _json, sys as _sys\nserve(_json.loads(_sys.argv[-1]))\n")
    return "\n\n".join(parts)


def sandbox_command(interpreter: str, config: str) -> list[str]:
    """argv that starts the sandbox program (a fork server) with its JSON ``config``."""
    return [interpreter, "-S", "-s", "-B", "-P", "-c", BOOTSTRAP, sandbox_program(), config]


@dataclass(frozen=True, slots=True)
class Interpreter:
    path: str
    version: str


def _readable_by_others(path: str, need_dir_read: bool) -> bool:
    """True when a process with no relation to the owner can reach ``path`` (o+x on every ancestor)."""
    path = os.path.realpath(path)
    parts = path.split(os.sep)
    for i in range(2, len(parts)):
        ancestor = os.sep.join(parts[:i]) or os.sep
        if not os.stat(ancestor).st_mode & stat.S_IXOTH:
            return False
    mode = os.stat(path).st_mode
    return bool(mode & stat.S_IROTH) and (not need_dir_read or bool(mode & stat.S_IXOTH))


_PROBE = (
    "import sys, sysconfig, site\n"
    "print(sys.version.split()[0]); print(sysconfig.get_paths()['stdlib'])\n"
    "sys.path.extend(site.getsitepackages())\n"
    "try:\n    import seccomp\nexcept ImportError:\n    print('no libseccomp')\nelse:\n    print('libseccomp')\n"
)


def _probe(path: str) -> tuple[str, str, bool] | None:
    """(version, stdlib dir, whether libseccomp's module is importable) of the interpreter at ``path``,
    or None if it is unusable."""
    try:
        out = subprocess.run(
            [path, "-S", "-c", _PROBE],
            capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"}, check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return None
    version, stdlib, seccomp = out[0], out[1], out[2] == "libseccomp"
    if tuple(int(x) for x in version.split(".")[:2]) < _MIN_VERSION:
        return None
    return version, stdlib, seccomp


@functools.cache
def find_interpreter(world_readable: bool) -> Interpreter:
    """The first usable Python that can load libseccomp (this one, then the system's), else the first
    usable one; raises RuntimeError if none. Without libseccomp the seccomp layers are missing."""
    candidates = [sys.executable, *_FALLBACK_INTERPRETERS]
    usable: list[tuple[Interpreter, bool]] = []
    for path in candidates:
        if not os.path.exists(path):
            continue
        probed = _probe(path)
        if probed is None:
            continue
        version, stdlib, seccomp = probed
        if world_readable and not (_readable_by_others(path, False) and _readable_by_others(stdlib, True)):
            continue
        usable.append((Interpreter(path=path, version=version), seccomp))
        if seccomp:
            break
    if usable:
        return next((found for found, seccomp in usable if seccomp), usable[0][0])
    where = "world-readable " if world_readable else ""
    raise RuntimeError(
        f"no {where}Python >= {_MIN_VERSION[0]}.{_MIN_VERSION[1]} found for the sandbox "
        f"(tried {', '.join(candidates)}); install python3 from the system packages"
    )
