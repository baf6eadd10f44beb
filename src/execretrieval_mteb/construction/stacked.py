"""Stacked mutants: two to four usable single edits of one canonical, composed, kept out of the corpus.

The benchmark's distractors are single edits. To let an analysis compare how models fare on
programs with several bugs, the build also emits, per shipped task, a few *stacked* mutants in
``data/stacked_mutants.jsonl`` (HF config ``stacked_mutants``); they never enter the corpus,
queries or qrels, so the benchmark's numbers do not change.

A stacked mutant composes ``n`` (2-4) of the task's usable single mutants whose edits touch
pairwise different lines: the edits are applied right to left on the canonical's text (so every
span still points at the canonical's characters) and the result must parse. Which edits: the
usable mutants in the order of a seeded hash, taken greedily while line-disjoint, from up to
``ATTEMPTS_PER_SIZE`` different starting points per size. Each composition is then verified like
a single mutant (fails a value test with a wrong answer, no timeout, disagrees with the canonical
on a generated input) and run a second time in the sweeps; per size the first verified and stable
composition is kept, so a task has at most one stacked mutant of each size. The build runs the
first composition of each size, and the others only for sizes where the first was not verified.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..dataset.schema import Label
from .mutation import Mutant
from .selection import edit_lines, seeded_key

STACK_SIZES: tuple[int, ...] = (2, 3, 4)
ATTEMPTS_PER_SIZE = 3


@dataclass(frozen=True)
class StackedMutant:
    """Single edits (in source order) of one canonical, applied together."""

    source_entry_id: str
    code: str
    edits: tuple[Mutant, ...]

    @property
    def n_edits(self) -> int:
        return len(self.edits)

    def to_row(self, corpus_id: str) -> dict[str, Any]:
        """The ``data/stacked_mutants.jsonl`` row."""
        return {
            "corpus_id": corpus_id,
            "code": self.code,
            "label": Label.INCORRECT.value,
            "source_entry_id": self.source_entry_id,
            "n_edits": self.n_edits,
            "bug_types": [m.bug_type.value for m in self.edits],
            "edits": [m.to_metadata() for m in self.edits],
        }


def compose(canonical: str, edits: Sequence[Mutant]) -> str | None:
    """``canonical`` with every edit applied (right to left); None when spans overlap or the result does not parse."""
    ordered = sorted(edits, key=lambda m: m.span[0])
    if any(a.span[1] > b.span[0] for a, b in zip(ordered, ordered[1:])):
        return None
    code = canonical
    for mutant in reversed(ordered):
        start, end = mutant.span
        if code[start:end] != mutant.before:
            return None
        code = code[:start] + mutant.after + code[end:]
    try:
        ast.parse(code)
    except SyntaxError:
        return None
    return code


def stack_candidates(
    canonical: str, entry: str, usable: Sequence[Mutant], seed: int, taken: frozenset[str] = frozenset()
) -> list[StackedMutant]:
    """Compositions to verify, in order of preference; ``taken`` are codes already in use (canonical, mutants)."""
    order = sorted(usable, key=lambda m: seeded_key(seed, "stacked", entry, m.code))
    seen = set(taken)
    out: list[StackedMutant] = []
    for size in STACK_SIZES:
        for attempt in range(min(ATTEMPTS_PER_SIZE, len(order))):
            chosen: list[Mutant] = []
            lines: set[int] = set()
            for mutant in order[attempt:] + order[:attempt]:
                if edit_lines(mutant) & lines:
                    continue
                chosen.append(mutant)
                lines |= edit_lines(mutant)
                if len(chosen) == size:
                    break
            if len(chosen) < size:
                continue
            edits = tuple(sorted(chosen, key=lambda m: m.span[0]))
            code = compose(canonical, edits)
            if code is not None and code not in seen:
                seen.add(code)
                out.append(StackedMutant(entry, code, edits))
    return out


def pick_stacked(verified: Sequence[StackedMutant]) -> list[StackedMutant]:
    """At most one per size: the first verified composition of each size, in ``verified``'s order."""
    by_size: dict[int, StackedMutant] = {}
    for stacked in verified:
        by_size.setdefault(stacked.n_edits, stacked)
    return [by_size[n] for n in sorted(by_size)]
