"""The sandbox programs (source text) and the interpreter that runs them.

The fork server runs as root but its children drop to an unprivileged uid of their worker, which
must still be able to read the interpreter's standard library for lazy imports; a virtualenv under
a 0700 home is not readable, so a world-readable system Python is picked instead, preferably one
that can load libseccomp (Debian's python3-seccomp). No sandbox process imports anything from this
package: the fork server receives the concatenated sources of the modules in the ``sandbox``
folder, in two parts (``sandbox_command``): the launcher's modules, which it compiles and later
hands, compiled, to its launcher (``launcher_command``), and its own.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources

LAUNCHER_MODULES = (
    "pytest_shim.py", "syscalls.py", "landlock.py", "seccomp.py", "isolation.py", "child.py", "launcher.py",
)
"""The launcher's modules of the ``sandbox`` folder in dependency order (each is stdlib-only and uses
the ones before it): everything a suite's child runs, and nothing of the server."""

SERVER_MODULES = ("server.py",)
"""The fork server's own modules; the server also runs the launcher's (it uses their names)."""

WARM_IMPORTS = (
    "math", "collections", "heapq", "bisect", "itertools", "functools", "operator", "re", "string",
    "datetime", "calendar", "fractions",
)
"""Imported once by the launcher so that each forked child finds them loaded: the stdlib the tasks
use (each is imported by at least 4 of the 1,009 tasks). A short list: a bigger launcher makes
every fork dearer (each C extension adds five memory areas to copy and tear down). Not
``threading`` nor anything importing ``random``: their at-fork handlers would run in every child."""

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


INTERPRETER_FLAGS = ("-S", "-s", "-B", "-P")
"""The sandbox interpreter's flags, the fork server's and its launcher's alike (no site, no user
site, no bytecode written, no script directory on ``sys.path``): the code under test sees the
``sys.flags`` and ``sys.path`` of the one interpreter the cache salt names."""

BOOTSTRAP = 'import sys; exec(compile(sys.argv[1], "<sandbox>", "exec"))'
"""What ``-c`` runs for a one-part program: it compiles the program passed as the next argument and runs it.

Not ``-c PROGRAM`` itself: the interpreter keeps the syntax tree of a ``-c`` (or script) module
alive until the module finishes, which for a fork server is never, and that scatters the objects
every child touches over more pages (measured: about 100 more copy-on-write faults and 0.8 ms
more CPU per suite). ``compile`` frees its tree at once."""

SERVER_BOOTSTRAP = (
    "import sys\n"
    "LAUNCHER_CODE = compile(sys.argv[1], '<launcher>', 'exec', optimize=2)\n"
    "exec(LAUNCHER_CODE)\n"
    "exec(compile(sys.argv[2], '<sandbox>', 'exec', optimize=2))\n"
)
"""The fork server's ``-c``: like ``BOOTSTRAP``, in two parts, the launcher's modules and then the
server's; it keeps the first part's code object (``LAUNCHER_CODE``) to hand it to its launcher.
Compiled without docstrings (``optimize=2``: the sandbox modules have no ``assert`` and read no
docstring), which saves the launcher 15 KB and the server a quarter of its compile time; the tests
are compiled by the child as the interpreter's flags say, asserts kept."""

LAUNCHER_BOOTSTRAP = (
    "import marshal, os, sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    try:\n"
    "        __import__(name)\n"
    "    except ImportError:\n"
    "        pass\n"
    "code, spec = marshal.loads(os.pread(int(sys.argv[2]), int(sys.argv[3]), 0))\n"
    "exec(code)\n"
    "del code\n"
    "launcher_main(spec)\n"
)
"""The launcher's ``-c``: import ``WARM_IMPORTS``, then run the launcher's modules, compiled by its
fork server (the same interpreter), and the launcher's entry with its spec; both come marshalled
in a memfd whose descriptor and size follow.

Compiled code, not source: compiling leaves the compiler's transient objects' pages behind among
the program's (measured: 1.4 MB more anonymous memory, which every fork and every child's exit pay
for), and the server has compiled it anyway. The stdlib first: the objects every child touches
then sit together after it (measured: about 20 fewer page faults per child)."""


def sandbox_source(name: str) -> str:
    """Source text of one module of the ``sandbox`` folder (e.g. ``pytest_shim.py``)."""
    return resources.files(__package__).joinpath("sandbox", name).read_text(encoding="utf-8")


def _concatenated(modules: tuple[str, ...]) -> str:
    return "\n\n".join(sandbox_source(name) for name in modules)


@functools.cache
def launcher_program() -> str:
    """Source of the launcher's modules, without an entry call (``LAUNCHER_BOOTSTRAP`` makes it)."""
    return _concatenated(LAUNCHER_MODULES)


@functools.cache
def server_program() -> str:
    """Source of the fork server's own modules, then its entry call."""
    return _concatenated(SERVER_MODULES) + "\n\nimport json as _json\nserve(_json.loads(sys.argv[-1]))\n"


def sandbox_command(interpreter: str, config: dict[str, object]) -> list[str]:
    """argv that starts a fork server with its ``config`` (JSON-able), to which it adds how the
    server starts its launcher (``launcher_command``)."""
    config = dict(config, launcher_command=launcher_command(interpreter))
    return [interpreter, *INTERPRETER_FLAGS, "-c", SERVER_BOOTSTRAP, launcher_program(), server_program(),
            json.dumps(config)]


def launcher_command(interpreter: str) -> list[str]:
    """argv that starts a launcher, but what its fork server appends (the memfd with the compiled
    launcher modules and the launcher's spec, and its size)."""
    return [interpreter, *INTERPRETER_FLAGS, "-c", LAUNCHER_BOOTSTRAP, ",".join(WARM_IMPORTS)]


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
