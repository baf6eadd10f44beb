"""Geometric chance level of family accuracy: how often a random query direction makes the
canonical the best of its family.

For a dense model, a query is a direction u and a snippet's score is ``u . e`` (on L2-normalised
embeddings for cosine models, raw ones for dot-product models). The canonical wins its family for u
when ``u . (c - m_j) > 0`` for every mutant j. For u uniform on the sphere (equivalently standard
Gaussian, the event being scale-free), the vector ``D u`` of those margins, with D the family's
(mutants x dim) matrix of differences ``c - m_j``, is Gaussian with covariance ``G = D D^T``. So with
``G = L L^T`` (from ``numpy.linalg.eigh``) and z standard Gaussian in as many dimensions as mutants::

    P(canonical wins) = P(L z > 0 componentwise)        estimated over R fixed-seed directions z

which is exactly the probability over uniform directions in the full space, at the cost of a
4-dimensional problem per family instead of a (dim x R) product per model. The R directions are
R/2 Gaussian draws and their antipodes (antithetic pairs: still uniform, half the products). A mutant with an
identical embedding ties the canonical under every direction and gets half the credit (1/(1+t) for
t such mutants), as everywhere here.

A canonical at the centre of its mutants (each mutant is one edit away, in a different direction)
is rarely the maximum of any direction, so this chance level can be far below the naive 1/5;
a model's family accuracy means something only against it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Families


class Similarity(enum.Enum):
    COSINE = "cosine"
    DOT = "dot"


@dataclass(frozen=True)
class FamilyEmbeddings:
    """A dense model's corpus embeddings (e.g. from ``embeddings/<model>.npz``): ``matrix[j]`` embeds ``corpus_ids[j]``."""

    corpus_ids: tuple[str, ...]
    matrix: np.ndarray
    """(n_corpus, dim) float32, normalised or not (cosine normalises it here)."""
    similarity: Similarity

    def __post_init__(self) -> None:
        if self.matrix.ndim != 2 or self.matrix.shape[0] != len(self.corpus_ids):
            raise ValueError(f"FamilyEmbeddings: matrix shape {self.matrix.shape} does not match {len(self.corpus_ids)} snippets")
        if not isinstance(self.similarity, Similarity):
            object.__setattr__(self, "similarity", Similarity(self.similarity))


@dataclass(frozen=True)
class GeometricChance:
    chance: float
    per_query: np.ndarray
    directions: int
    seed: int
    never_wins: int
    """Families whose canonical won under none of the directions."""
    missing: int
    """Families left out because a member has no embedding."""

    def to_json(self) -> dict[str, Any]:
        return {"chance": None if np.isnan(self.chance) else self.chance, "directions": self.directions, "seed": self.seed,
                "families": int(self.per_query.size), "canonical_never_wins": self.never_wins,
                "families_missing_embeddings": self.missing}


def geometric_chance(embeddings: FamilyEmbeddings, families: Families, directions: int, seed: int,
                     chunk: int = 2_000) -> GeometricChance:
    if families.width == 0:
        raise ValueError("geometric chance: the dataset's queries have no mutants")
    canon, muts = families.columns(embeddings.corpus_ids)
    vectors = embeddings.matrix.astype(np.float64)
    if embeddings.similarity is Similarity.COSINE:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms == 0.0, 1.0, norms)
    complete = (canon >= 0) & np.all((muts >= 0) | ~families.mutant_mask, axis=1)
    rows = np.flatnonzero(complete)
    real = families.mutant_mask[rows]
    diff = vectors[canon[rows]][:, None, :] - vectors[np.where(real, muts[rows], 0)]
    diff[~real] = 0.0
    identical = real & np.all(diff == 0.0, axis=2)
    contested = real & ~identical
    gram = diff @ diff.transpose(0, 2, 1)
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    factor = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[:, None, :]  # L with L L^T = G
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((families.width, (directions + 1) // 2))
    # A mutant tied with the canonical under every direction is no constraint: its row is replaced by a
    # copy of a contested row of the same family (a repeated constraint changes nothing); a family
    # with no contested mutant always wins (its ties are shared below).
    anchor = np.argmax(contested, axis=1)
    free = ~contested.any(axis=1)
    factor = np.where(contested[:, :, None], factor, factor[np.arange(rows.size), anchor][:, None, :])
    # One GEMM per block of draws for all families at once, in float32 (only signs are used). Each draw
    # z also gives its antipode -z for free: the canonical wins at -z when every margin is negative.
    flat_factor = factor.reshape(-1, families.width).astype(np.float32)
    z32 = z.astype(np.float32)
    wins = np.zeros(rows.size)
    for begin in range(0, z32.shape[1], chunk):
        block = z32[:, begin:begin + chunk]
        margins = (flat_factor @ block).reshape(rows.size, families.width, block.shape[1])
        wins += (margins.min(axis=1) > 0.0).sum(axis=1)
        antipodes = margins.max(axis=1) < 0.0
        if begin + block.shape[1] == z32.shape[1] and directions % 2:
            antipodes[:, -1] = False  # an odd count uses the last draw once
        wins += antipodes.sum(axis=1)
    wins[free] = directions
    per_family = wins / directions / (1.0 + identical.sum(axis=1))
    per_query = np.full(families.size, np.nan)
    per_query[rows] = per_family
    return GeometricChance(float(per_family.mean()) if rows.size else float("nan"), per_query, directions, seed,
                           int(np.sum(wins == 0)), int(families.size - rows.size))
