"""Truncation: snippets longer than a dense model reads, and mutants it cannot tell from their canonical.

An encoder reads at most its maximum sequence length L in tokens (special tokens and any prompt
included); a longer input is cut, and a mutation past the cut leaves the embedding unchanged
(all-MiniLM-L6-v2 reads 256 word pieces, and long families lose their mutations that way). Such a
mutant ties its canonical under every query, so it counts as deceived and costs the canonical half
its family credit, whatever the model knows. Per model::

    over       = #{snippets s : tokens(s) > L}     counted when the model ran (``TokenLengths``), as it tokenises
    identical  = #{(canonical, mutant) pairs : embedding(mutant) == embedding(canonical) exactly}   from its embeddings

with the number of families holding an identical mutant. The report flags every model with a
non-zero count of either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families
from .geometric_chance import FamilyEmbeddings
from .not_computed import NotComputed


@dataclass(frozen=True)
class TokenLengths:
    """How many inputs of a model's run tokenised past its maximum sequence length (recorded by ``run``)."""

    max_length: int
    """L, in tokens (the model's maximum sequence length)."""
    snippets: int
    snippets_over: int
    queries: int
    queries_over: int


@dataclass(frozen=True)
class Truncation:
    identical_mutants: int
    families: int
    """Families with at least one identically embedded mutant."""
    mutants: int
    """Mutants with an embedding (the population)."""
    lengths: TokenLengths | NotComputed

    def to_json(self) -> dict[str, Any]:
        identical = {"mutants_embedded_identically_to_their_canonical": self.identical_mutants,
                     "families_affected": self.families, "mutants_embedded": self.mutants}
        if isinstance(self.lengths, NotComputed):
            return {**identical, "snippets_over_max_length": self.lengths.to_json()}
        return {**identical, "max_seq_length": self.lengths.max_length,
                "snippets_over_max_length": self.lengths.snippets_over, "snippets": self.lengths.snippets,
                "queries_over_max_length": self.lengths.queries_over, "queries": self.lengths.queries}


def truncation(embeddings: FamilyEmbeddings, families: Families, lengths: TokenLengths | NotComputed) -> Truncation:
    canon, muts = families.columns(embeddings.corpus_ids)
    present = families.mutant_mask & (muts >= 0) & (canon >= 0)[:, None]
    rows, slots = np.nonzero(present)
    matrix = embeddings.matrix
    same = np.all(matrix[canon[rows]] == matrix[muts[rows, slots]], axis=1)
    return Truncation(int(same.sum()), int(np.unique(rows[same]).size), int(rows.size), lengths)
