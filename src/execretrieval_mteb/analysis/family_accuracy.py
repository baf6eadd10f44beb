"""Family accuracy: the share of queries whose canonical outranks all of its own mutants.

Retrieval-free: only the query's own family is compared, so snippets of other tasks cannot help or
hurt. Tie-neutral like every metric here::

    acc(q) = 0                            if some mutant scores above the canonical
           = 1 / (1 + mutants tied with it)  otherwise
    family accuracy = mean over queries of acc(q)

Naive chance is ``mean 1 / (1 + mutants)`` (0.2 with four), but that assumes the canonical is no
different from its mutants in embedding space. Read it against ``geometric_chance`` (the chance
level of random query directions, the floor); ``structure_baseline`` says how the families are
built (the canonical is every family's unique medoid), not what chance gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families
from .family_scores import FamilyScores


@dataclass(frozen=True)
class FamilyAccuracy:
    accuracy: float | None
    decided: int
    undecided: int
    naive_chance: float

    def to_json(self) -> dict[str, Any]:
        return {"family_accuracy": self.accuracy, "queries_decided": self.decided,
                "queries_undecided": self.undecided, "naive_chance": self.naive_chance}


def naive_chance(families: Families) -> float:
    return float(np.mean(1.0 / (1.0 + families.mutant_mask.sum(axis=1)))) if families.size else 0.0


def family_accuracy(scores: FamilyScores, families: Families) -> FamilyAccuracy:
    values = scores.family_accuracy()
    known = ~np.isnan(values)
    accuracy = float(values[known].mean()) if known.any() else None
    return FamilyAccuracy(accuracy, int(known.sum()), int((~known).sum()), naive_chance(families))
