"""Stacked mutations: are composed edits (2-4 line-disjoint single edits, execution-verified) more
or less deceptive than single edits?

The build keeps stacked mutants out of the benchmark's corpus (``data/stacked_mutants.jsonl``); a
run on request scores every query against them, per model, as a ``StackedScores`` matrix. A
stacked mutant belongs to the query whose ``entry_id`` is its ``source_entry_id``, and the triple
(query, stacked mutant, model) is deceived when::

    score(q, stacked mutant) >= score(q, canonical)

with the canonical's score from the same model's ``FamilyScores`` (an unlisted canonical scores at
most the ranking's lowest listed score, which decides every stacked mutant scoring at least that).
Reported per model: stacked deception overall and by number of edits, single-edit deception on the
same families, and the difference in percentage points (the study found them within 1.7 points).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .deception import Rate
from .family import Families
from .family_scores import FamilyScores

NOT_COMPUTED = "not computed: run with stacked mutants"


@dataclass(frozen=True)
class StackedScores:
    """One model's ``matrix[i, j]`` = score of stacked mutant ``corpus_ids[j]`` for ``query_ids[i]``."""

    query_ids: tuple[str, ...]
    corpus_ids: tuple[str, ...]
    matrix: np.ndarray
    source_entry_ids: tuple[str, ...]
    """Per stacked mutant: the task (query ``entry_id``) it was composed from."""
    n_edits: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.matrix.shape != (len(self.query_ids), len(self.corpus_ids)):
            raise ValueError(f"StackedScores: matrix shape {self.matrix.shape} does not match "
                             f"{len(self.query_ids)} queries x {len(self.corpus_ids)} stacked mutants")
        if not len(self.source_entry_ids) == len(self.n_edits) == len(self.corpus_ids):
            raise ValueError("StackedScores: source_entry_ids and n_edits need one entry per stacked mutant")


@dataclass(frozen=True)
class StackedDeception:
    stacked: Rate
    by_edits: dict[int, Rate]
    single_same_families: Rate
    families: int
    unmatched: int
    """Stacked mutants whose task has no query in the scored set."""

    @property
    def difference_points(self) -> float | None:
        s, t = self.stacked.rate, self.single_same_families.rate
        return None if s is None or t is None else 100.0 * (s - t)

    def to_json(self) -> dict[str, Any]:
        return {"stacked": self.stacked.to_json(), "by_edits": {str(k): r.to_json() for k, r in sorted(self.by_edits.items())},
                "single_same_families": self.single_same_families.to_json(),
                "difference_points": self.difference_points, "families": self.families, "unmatched": self.unmatched}


def stacked_deception(stacked: StackedScores, scores: FamilyScores, families: Families) -> StackedDeception:
    family_row = {entry: i for i, entry in enumerate(families.entry_ids)}
    matrix_row = {qid: i for i, qid in enumerate(stacked.query_ids)}
    rows, cols, fams = [], [], []
    for j, entry in enumerate(stacked.source_entry_ids):
        i = family_row.get(entry)
        if i is not None and families.query_ids[i] in matrix_row:
            rows.append(matrix_row[families.query_ids[i]])
            cols.append(j)
            fams.append(i)
    fam = np.array(fams, dtype=np.int64)
    s = stacked.matrix[np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)].astype(np.float64)
    c, bound = scores.canonical[fam], scores.bound[fam]
    deceived = np.where(~np.isnan(c), (s >= c).astype(float), np.where(s >= bound, 1.0, np.nan))
    edits = np.array(stacked.n_edits, dtype=np.int64)[np.array(cols, dtype=np.int64)]
    by_edits = {int(k): Rate.of(deceived[edits == k]) for k in np.unique(edits)}
    covered = np.unique(fam)
    single = scores.deceived()[covered]
    return StackedDeception(Rate.of(deceived), by_edits, Rate.of(single[families.mutant_mask[covered]]),
                            int(covered.size), len(stacked.source_entry_ids) - len(cols))
