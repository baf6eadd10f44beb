"""Integrity sweeps over the assembled corpus, after the gates.

- distractor sanity: every shipped snippet is run again on its own query's tests; the canonical
  must pass, every mutant must fail, and the outcome lists must equal those of the selection run
  (a differing list means a non-deterministic snippet, which the execution cache cannot hold).
- cross-canonical: every snippet's syntax tree is searched for a binding (``def``, ``class``,
  import alias or assignment) of another query's target name; each such snippet is run on that
  query's tests. A snippet that passes them all is a collision: a second correct answer the qrels
  do not know. The MTEB task scores pairs absent from the execution cache as failing; that is
  sound because a test calls its target by name, so code that binds no such name cannot pass,
  and every pair that does bind it was run here and is in the cache.
"""

from __future__ import annotations

import ast
import enum
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from ..oracle.outcomes import Suite, SuiteResult


class Sweep(enum.Enum):
    DISTRACTOR_SANITY = "distractor_sanity"
    CROSS_CANONICAL = "cross_canonical"


def bound_names(code: str) -> frozenset[str]:
    """Every name the code binds that a test could call: defs and classes anywhere, imports and assignments."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Name)) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return frozenset(names)


@dataclass(frozen=True)
class CrossPair:
    """Snippet ``item`` (an index into the swept items) bound ``target``, another query's target name."""

    item: int
    owner: str
    target: str
    suite: Suite


def cross_canonical_pairs(
    items: Sequence[tuple[str, str]], tests_by_target: Mapping[str, Sequence[str]]
) -> list[CrossPair]:
    """Pairs to run for items given as (owner target name, code); owners are never paired with themselves."""
    pairs = []
    for index, (owner, code) in enumerate(items):
        for target in sorted((bound_names(code) & tests_by_target.keys()) - {owner}):
            pairs.append(CrossPair(index, owner, target, Suite(code, tuple(tests_by_target[target]))))
    return pairs


@dataclass(frozen=True)
class CrossResult:
    pair: CrossPair
    result: SuiteResult

    @property
    def collision(self) -> bool:
        return self.result.passed


def summarise_cross(results: Sequence[CrossResult], items_searched: int, shipped_owners: Set[str]) -> dict[str, object]:
    """Counts for the report; a collision's owning task is excluded, so ``passed`` is about what ships."""
    pairs = Counter(f"{r.pair.owner} defines {r.pair.target}" for r in results)
    found = Counter(f"{r.pair.owner} defines {r.pair.target}" for r in results if r.collision)
    shipped = [r for r in results if r.collision and r.pair.owner in shipped_owners]
    return {
        "items_searched": items_searched,
        "pairs_run": len(results),
        "pairs": [f"{name} ({n} snippet{'s' if n > 1 else ''})" for name, n in sorted(pairs.items())],
        "collisions_found": [f"{name} ({n} snippet{'s' if n > 1 else ''})" for name, n in sorted(found.items())],
        "collisions_shipped": len(shipped),
        "passed": not shipped,
    }
