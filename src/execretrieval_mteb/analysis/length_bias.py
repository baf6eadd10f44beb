"""Length bias: are mutants shorter than their canonical deceptive more often than longer ones?

Some models prefer shorter (or longer) texts regardless of content, and a mutation changes the
length (a removed guard shortens the snippet, ``<`` -> ``<=`` lengthens it by one). Mutants are split
by their length in characters against their canonical's (shorter / same / longer), and deception
(``deception``) is reported per group, per model and pooled. A model whose deception differs a lot
between the groups is reacting to length, not to what the code does.
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

    def to_json(self) -> dict[str, Any]:
        return {"mutants": {g.value: n for g, n in self.mutants.items()},
                "deception": {g.value: r.to_json() for g, r in self.deception.items()}}


def length_bias(groups: np.ndarray, deceived: Mapping[str, np.ndarray], families: Families) -> LengthBias:
    """Over the given models' deceived matrices (one model, or all for the pooled numbers)."""
    mask = families.mutant_mask
    counts = {g: int(np.sum(mask & (groups == _SIGN[g]))) for g in LengthGroup}
    rates = {g: Rate(0.0, 0, 0) for g in LengthGroup}
    for matrix in deceived.values():
        for g in LengthGroup:
            rates[g] = rates[g] + Rate.of(matrix[mask & (groups == _SIGN[g])])
    return LengthBias(counts, rates)
