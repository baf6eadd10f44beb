"""Where wild functions come from: the sandbox interpreter's standard library and the installed distributions.

A ``Source`` is one licence unit: the standard library of the interpreter the oracle runs
(``oracle.program.find_interpreter``; PSF-2.0), or one distribution of a ``site-packages``
directory (default: the running environment's, i.e. the project's ``.venv``), its licence read
from its metadata (``licenses``), its files from its ``RECORD``. Sources are ordered stdlib first,
then distributions by normalised name; files by path: the traversal is sorted, so the same sources
give the same corpus. Skipped inside every source, because their code is not the source's own or
not library code: test files and folders (``test``, ``tests``, ``testing``, ``test_*.py``,
``*_test.py``, ``conftest.py``), vendored copies of other projects (``_vendor``, ``vendor``,
``vendored``, ``_vendored``, ``extern``, ``_extern``, ``third_party``), and, in the standard library,
its ``site-packages`` / ``dist-packages``. This project itself is never a source.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sysconfig
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import Distribution, distributions
from pathlib import Path

from .licenses import Licence, read_licence

STDLIB_PACKAGE = "python-stdlib"
SELF = "execretrieval-mteb"
TEST_DIRS = frozenset({"test", "tests", "testing"})
SKIPPED_DIRS = frozenset({
    "_vendor", "vendor", "vendored", "_vendored", "extern", "_extern", "third_party",
    "site-packages", "dist-packages", "__pycache__",
})


@dataclass(frozen=True)
class Interpreter:
    """What the sandbox's Python accepts: its version, standard library, builtins and stdlib modules."""

    path: str
    version: str
    stdlib: Path
    builtins: frozenset[str]
    stdlib_modules: frozenset[str]


_PROBE = (
    "import builtins, json, sys, sysconfig\n"
    "print(json.dumps({'version': sys.version.split()[0], 'stdlib': sysconfig.get_paths()['stdlib'],"
    " 'builtins': sorted(dir(builtins)), 'modules': sorted(sys.stdlib_module_names)}))\n"
)


@functools.cache
def sandbox_interpreter(path: str | None = None) -> Interpreter:
    """The sandbox's interpreter (the oracle's choice unless ``path``), probed once."""
    if path is None:
        from ...oracle.program import find_interpreter

        path = find_interpreter(world_readable=True).path
    out = subprocess.run([path, "-S", "-I", "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60)
    info = json.loads(out.stdout)
    return Interpreter(path, info["version"], Path(info["stdlib"]), frozenset(info["builtins"]),
                       frozenset(info["modules"]))


@dataclass(frozen=True)
class Source:
    """One licence unit and the Python files it contributes (relative POSIX paths under ``root``)."""

    package: str
    version: str
    licence: Licence
    root: Path
    files: tuple[str, ...]


def skipped(rel: str) -> bool:
    """A vendored copy or a site directory (see the module docstring)."""
    return any(p in SKIPPED_DIRS for p in rel.split("/")[:-1])


def is_test_file(rel: str) -> bool:
    """A file of a test folder (``test``, ``tests``, ``testing``), ``test_*.py``, ``*_test.py`` or ``conftest.py``."""
    parts = rel.split("/")
    name = parts[-1]
    return (any(p in TEST_DIRS for p in parts[:-1]) or name.startswith("test_") or name.endswith("_test.py")
            or name == "conftest.py")


def stdlib_source(interpreter: Interpreter) -> Source:
    root = interpreter.stdlib
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if p.is_file())
    licence = Licence("PSF-2.0 (Python Software Foundation License)", "PSF-2.0", "CPython")
    return Source(STDLIB_PACKAGE, interpreter.version, licence, root, tuple(f for f in files if not skipped(f)))


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def distribution_source(dist: Distribution) -> Source:
    meta = dist.metadata
    licence = read_licence(meta.get("License-Expression"), meta.get_all("Classifier") or [], meta.get("License"))
    files: list[str] = []
    root = Path(dist.locate_file(""))
    for entry in dist.files or ():
        rel = entry.as_posix()
        if rel.endswith(".py") and not rel.startswith("..") and not skipped(rel):
            files.append(rel)
    return Source(_normalised(meta["Name"]), meta["Version"], licence, root, tuple(sorted(set(files))))


def site_packages_default() -> list[Path]:
    """The running environment's ``site-packages`` (purelib and platlib, once each)."""
    paths = sysconfig.get_paths()
    return [Path(p) for p in dict.fromkeys((paths["purelib"], paths["platlib"]))]


def distribution_sources(site_dirs: Sequence[Path]) -> list[Source]:
    """Every distribution of ``site_dirs`` but this project, by normalised name (first one of a name wins)."""
    found: dict[str, Distribution] = {}
    for dist in distributions(path=[str(p) for p in site_dirs]):
        name = _normalised(dist.metadata["Name"] or "")
        if name and name != SELF and name not in found:
            found[name] = dist
    return [distribution_source(found[name]) for name in sorted(found)]


def all_sources(interpreter: Interpreter, site_dirs: Sequence[Path] | None = None) -> Iterator[Source]:
    """The standard library, then the distributions (see the module docstring)."""
    yield stdlib_source(interpreter)
    yield from distribution_sources(site_packages_default() if site_dirs is None else site_dirs)
