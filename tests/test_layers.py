"""Layers only import downwards: every import of every module, those inside functions and under
``TYPE_CHECKING`` included, read from the source with ``ast`` (nothing is imported, so a lazy
import cannot hide an upward edge)."""

from __future__ import annotations

import ast
from pathlib import Path

import execretrieval_mteb

PACKAGE = Path(execretrieval_mteb.__file__).parent
NAME = "execretrieval_mteb"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors"}),
    frozenset({"oracle"}),
    frozenset({"dataset"}),
    frozenset({"construction", "evaluation"}),
    frozenset({"analysis", "mteb_task"}),
    frozenset({"results"}),
    frozenset({"leaderboard"}),
    frozenset({"hub"}),
    frozenset({"cli"}),
    frozenset({"__init__"}),
)
"""Bottom first. A part may import only parts of lower layers (and itself); parts of one layer
never import each other: ``evaluation`` scores rankings, ``analysis`` computes statistics over
scores, ``mteb_task`` is the MTEB task, and ``results`` (files, rescoring, the leaderboard row)
is the one home above them."""

RANK = {part: rank for rank, layer in enumerate(LAYERS) for part in layer}


def _part(module: str) -> str:
    """``execretrieval_mteb.evaluation.ranking`` -> ``evaluation``; the package itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_of(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _imports(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import of this package in ``source``, the text of ``module``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]  # from pkg import module
    return [(line, target) for line, target in found if target == NAME or target.startswith(NAME + ".")]


def _upward(source: str, module: str, is_package: bool, where: str) -> list[str]:
    """Every import in ``source`` of a part of the package at the importer's layer or above."""
    importer = _part(module)
    found = []
    for line, target in _imports(source, module, is_package):
        if target == NAME:
            continue  # ``from .. import __version__``: the root only holds the version and lazy re-exports
        part = _part(target)
        if part != importer and part in RANK and RANK[part] >= RANK[importer]:
            found.append(f"{where}:{line}: {importer} imports {target}")
    return found


def test_every_part_has_a_layer() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"}
    assert parts - set(RANK) == set(), "a new part of the package needs its place in LAYERS"


def test_layers_only_import_downwards() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module, is_package = _module_of(path)
        upward += _upward(path.read_text(encoding="utf-8"), module, is_package, str(path.relative_to(PACKAGE.parent)))
    assert upward == [], "\n".join(upward)


def test_the_check_sees_lazy_relative_and_type_checking_imports() -> None:
    """The reader itself: an upward import hidden in a function, or under TYPE_CHECKING, is found."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .ranking import Ranking\n"
        "if TYPE_CHECKING:\n    from ..analysis import Interval\n"
        "def f():\n    from ..results.outputs import finish\n"
        "def g():\n    import execretrieval_mteb.mteb_task.bm25\n"
    )
    found = _upward(source, f"{NAME}.evaluation.probe", False, "probe.py")
    assert found == [
        "probe.py:4: evaluation imports execretrieval_mteb.analysis",
        "probe.py:4: evaluation imports execretrieval_mteb.analysis.Interval",
        "probe.py:6: evaluation imports execretrieval_mteb.results.outputs",
        "probe.py:6: evaluation imports execretrieval_mteb.results.outputs.finish",
        "probe.py:8: evaluation imports execretrieval_mteb.mteb_task.bm25",
    ]
