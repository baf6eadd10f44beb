"""Truncation: mutants a dense model cannot tell from their canonical because it embeds them identically.

An encoder reads at most its maximum sequence length in tokens; a snippet longer than that is cut,
and a mutation past the cut leaves the embedding unchanged (all-MiniLM-L6-v2 reads 256 word pieces,
and long families lose their mutations that way). Such a mutant ties its canonical under every query,
so it counts as deceived and costs the canonical half its family credit, whatever the model knows.
Per model, from its corpus embeddings::

    identical = #{(canonical, mutant) pairs : embedding(mutant) == embedding(canonical) exactly}

with the number of families holding one. The report flags every model with a non-zero count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families
from .geometric_chance import FamilyEmbeddings


@dataclass(frozen=True)
class Truncation:
    identical_mutants: int
    families: int
    """Families with at least one identically embedded mutant."""
    mutants: int
    """Mutants with an embedding (the population)."""

    def to_json(self) -> dict[str, Any]:
        return {"mutants_embedded_identically_to_their_canonical": self.identical_mutants,
                "families_affected": self.families, "mutants_embedded": self.mutants}


def truncation(embeddings: FamilyEmbeddings, families: Families) -> Truncation:
    canon, muts = families.columns(embeddings.corpus_ids)
    present = families.mutant_mask & (muts >= 0) & (canon >= 0)[:, None]
    rows, slots = np.nonzero(present)
    matrix = embeddings.matrix
    same = np.all(matrix[canon[rows]] == matrix[muts[rows, slots]], axis=1)
    return Truncation(int(same.sum()), int(np.unique(rows[same]).size), int(rows.size))
