"""Length bias: are mutants shorter than their canonical deceptive more often than longer ones?

Some models prefer shorter (or longer) texts regardless of content, and a mutation changes the
length (a removed guard shortens the snippet, ``<`` -> ``<=`` lengthens it by one). Mutants are split
by their length in characters against their canonical's (shorter / same / longer), and deception
(``deception``) is reported per group, per model and pooled. A model whose deception differs a lot
between the groups may be reacting to length, but the groups are confounded with the bug type
(every guard removal is shorter, every swapped argument the same length), so deception is also
given per bug type and length group: only a difference within one bug type points at length.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .deception import Rate
from .family import Families


class LengthGroup(enum.Enum):
    SHORTER = "shorter"
    SAME = "same"
    LONGER = "longer"


def length_groups(families: Families) -> np.ndarray:
    """(n_queries, width) sign of len(mutant) - len(canonical): -1, 0, 1 (0 where absent)."""
    out = np.zeros(families.mutant_ids.shape, dtype=np.int64)
    for i, j in zip(*np.nonzero(families.mutant_mask), strict=True):
        mutant = families.corpus[str(families.mutant_ids[i, j])].code
        out[i, j] = int(np.sign(len(mutant) - len(families.corpus[families.canonical_ids[i]].code)))
    return out


_SIGN = {LengthGroup.SHORTER: -1, LengthGroup.SAME: 0, LengthGroup.LONGER: 1}


@dataclass(frozen=True)
class LengthBias:
    mutants: dict[LengthGroup, int]
    deception: dict[LengthGroup, Rate]
    mutants_by_bug_type: dict[str, dict[LengthGroup, int]]
    deception_by_bug_type: dict[str, dict[LengthGroup, Rate]]
    """bug type -> length group -> deception (only groups with mutants)."""

    def to_json(self) -> dict[str, Any]:
        return {"mutants": {g.value: n for g, n in self.mutants.items()},
                "deception": {g.value: r.to_json() for g, r in self.deception.items()},
                "by_bug_type": {bt: {g.value: {"mutants": self.mutants_by_bug_type[bt][g], **r.to_json()}
                                     for g, r in groups.items()}
                                for bt, groups in sorted(self.deception_by_bug_type.items())}}


def length_bias(groups: np.ndarray, deceived: Mapping[str, np.ndarray], families: Families) -> LengthBias:
    """Over the given models' deceived matrices (one model, or the dense models for the pooled numbers)."""
    mask = families.mutant_mask
    counts = {g: int(np.sum(mask & (groups == _SIGN[g]))) for g in LengthGroup}
    rates = {g: Rate(0.0, 0, 0) for g in LengthGroup}
    types = families.bug_type_names()
    by_type_counts = {bt: {g: int(np.sum(mask & (families.bug_types == bt) & (groups == _SIGN[g]))) for g in LengthGroup}
                      for bt in types}
    by_type = {bt: {g: Rate(0.0, 0, 0) for g in LengthGroup if by_type_counts[bt][g]} for bt in types}
    for matrix in deceived.values():
        for g in LengthGroup:
            cell = mask & (groups == _SIGN[g])
            rates[g] = rates[g] + Rate.of(matrix[cell])
            for bt in types:
                if g in by_type[bt]:
                    by_type[bt][g] = by_type[bt][g] + Rate.of(matrix[cell & (families.bug_types == bt)])
    return LengthBias(counts, rates, by_type_counts, by_type)
