"""Deception by bug type: is a mutant scored at least as high as its canonical?

A (query, mutant, model) triple is deceived when ``score(q, mutant) >= score(q, canonical)`` (a tie
counts: under random tie-breaking the mutant can then take the canonical's place). Per model and
pooled over all models (every decided triple weighing the same)::

    deception = deceived triples / decided triples,   overall and per bug type of the mutant

Undecided triples (both scores outside a ranking, see ``family_scores``) are counted, not guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families


@dataclass(frozen=True)
class Rate:
    """deceived / decided, with the counts (``rate`` is None when nothing was decided)."""

    deceived: float
    decided: int
    undecided: int

    @property
    def rate(self) -> float | None:
        return self.deceived / self.decided if self.decided else None

    @classmethod
    def of(cls, values: np.ndarray) -> Rate:
        """From an array of 1/0/NaN (NaN: undecided; absent slots must already be dropped)."""
        known = ~np.isnan(values)
        return cls(float(values[known].sum()), int(known.sum()), int((~known).sum()))

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.deceived + other.deceived, self.decided + other.decided, self.undecided + other.undecided)

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "deceived": self.deceived, "decided": self.decided, "undecided": self.undecided}


@dataclass(frozen=True)
class Deception:
    overall: Rate
    by_bug_type: dict[str, Rate]

    def to_json(self) -> dict[str, Any]:
        return {"overall": self.overall.to_json(), "by_bug_type": {bt: r.to_json() for bt, r in sorted(self.by_bug_type.items())}}


def deception(deceived: np.ndarray, families: Families) -> Deception:
    """From a model's deceived matrix (``FamilyScores.deceived``)."""
    mask = families.mutant_mask
    by_type = {bt: Rate.of(deceived[mask & (families.bug_types == bt)]) for bt in families.bug_type_names()}
    return Deception(Rate.of(deceived[mask]), by_type)


def pooled(per_model: Mapping[str, Deception]) -> Deception:
    """All models' triples together."""
    models = list(per_model.values())
    if not models:
        return Deception(Rate(0.0, 0, 0), {})
    overall = models[0].overall
    by_type = dict(models[0].by_bug_type)
    for d in models[1:]:
        overall = overall + d.overall
        for bt, r in d.by_bug_type.items():
            by_type[bt] = by_type[bt] + r if bt in by_type else r
    return Deception(overall, by_type)
