"""Per-query difficulty: how many of the evaluated systems solve each query at rank 1.

With ties a system solves a query with probability exec@1 (its expectation under random
tie-breaking), so the expected number of solvers is::

    solvers(q) = sum over systems of exec@1(q)

A query no system can solve (every system's exec@1 is 0) is listed by id: it is either very hard
or worth a second look at its mutants. The study: median query solved by 3 of 24 systems, 88 by none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..evaluation.metric_names import MAIN_SCORE
from .score_matrix import ScoreMatrix


@dataclass(frozen=True)
class Difficulty:
    systems: int
    solvers: dict[str, float]
    unsolved: tuple[str, ...]
    solved_by_all: int

    def to_json(self) -> dict[str, Any]:
        values = np.array(list(self.solvers.values()))
        return {
            "systems": self.systems,
            "median_expected_solvers": float(np.median(values)) if values.size else None,
            "mean_expected_solvers": float(np.mean(values)) if values.size else None,
            "solved_by_none": len(self.unsolved), "solved_by_all": self.solved_by_all,
            "unsolved_query_ids": list(self.unsolved),
            "expected_solvers_by_query": self.solvers,
        }


def difficulty(scores: ScoreMatrix) -> Difficulty:
    exec1 = scores.values[:, :, scores.metrics.index(MAIN_SCORE)]  # (queries, models)
    solvers = exec1.sum(axis=1)
    unsolved = tuple(q for q, row in zip(scores.query_ids, exec1, strict=True) if not row.any())
    solved_by_all = int(np.sum(np.all(exec1 == 1.0, axis=1)))
    return Difficulty(len(scores.models), {q: float(s) for q, s in zip(scores.query_ids, solvers, strict=True)},
                      unsolved, solved_by_all)
