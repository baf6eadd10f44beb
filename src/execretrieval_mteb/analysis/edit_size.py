"""Edit size vs deception: do bigger edits fool a model less (or more)?

A mutant's edit size is the number of characters in the non-equal regions of a character diff
against its canonical: for every non-``equal`` opcode of
``difflib.SequenceMatcher(None, canonical, mutant, autojunk=False)``, the longer of its two sides
(a replaced ``<`` by ``<=`` is one region: ``""`` -> ``"="`` after the shared ``<``, size 1; a deleted
guard counts every deleted character). The common prefix and suffix are stripped before the diff:
a single-edit mutant differs in one place, and without stripping the matcher is quadratic in the
snippet length (18 s for the bundled 4,036 mutants, 0.2 s with it; on all 4,036 the sizes equal
those of the unstripped diff).

The relative edit size divides it by the canonical's length in characters.

Sizes fall into bins 1 / 2-5 / 6-20 / 21+; per bin, deception (``deception``) over the decided
(query, mutant, model) triples, per model and pooled over the dense models. The association is the
study's: one value per (canonical, mutant) pair, that pair's deception rate over the models (its
mean deceived indicator over the models that decide it), and ``scipy.stats.spearmanr`` (tie-aware:
average ranks, which matters since most sizes are 1) between it and the absolute and the relative
edit size, so n is the number of pairs, not pairs x models (counting one mutant once per model
would shrink p without adding information).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from .deception import Rate
from .family import Families

BINS: tuple[tuple[str, int, float], ...] = (("1", 1, 1), ("2-5", 2, 5), ("6-20", 6, 20), ("21+", 21, np.inf))


def _strip_common(a: str, b: str) -> tuple[str, str]:
    n = min(len(a), len(b))
    start = 0
    while start < n and a[start] == b[start]:
        start += 1
    end = 0
    while end < n - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return a[start:len(a) - end], b[start:len(b) - end]


def edit_size(canonical: str, mutant: str) -> int:
    """Characters in the non-equal regions of the character diff (the longer side of each region)."""
    a, b = _strip_common(canonical, mutant)
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in opcodes if tag != "equal")


def family_edit_sizes(families: Families) -> np.ndarray:
    """(n_queries, width) edit size of each mutant, 0 where absent."""
    sizes = np.zeros(families.mutant_ids.shape, dtype=np.int64)
    for i, j in zip(*np.nonzero(families.mutant_mask), strict=True):
        canonical = families.corpus[families.canonical_ids[i]].code
        sizes[i, j] = edit_size(canonical, families.corpus[str(families.mutant_ids[i, j])].code)
    return sizes


def size_bin(sizes: np.ndarray) -> np.ndarray:
    """Index into ``BINS`` of each size."""
    return np.searchsorted(np.array([hi for _, _, hi in BINS[:-1]]), sizes, side="left")


@dataclass(frozen=True)
class Spearman:
    rho: float | None
    p: float | None
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"rho": self.rho, "p": self.p, "n": self.n}


def spearman(x: np.ndarray, y: np.ndarray) -> Spearman:
    """Tie-aware Spearman correlation; None when either side is constant."""
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return Spearman(None, None, int(x.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = spearmanr(x, y)
    return Spearman(float(result.statistic), float(result.pvalue), int(x.size))


@dataclass(frozen=True)
class EditSize:
    mutants_by_bin: dict[str, int]
    by_bin: dict[str, Rate]
    spearman_absolute: Spearman
    """Edit size vs each pair's deception rate over the models, n = pairs."""
    spearman_relative: Spearman
    """Edit size / canonical length vs the same rates."""

    def to_json(self) -> dict[str, Any]:
        return {"mutants_by_bin": self.mutants_by_bin, "deception_by_bin": {b: r.to_json() for b, r in self.by_bin.items()},
                "spearman_pairs_absolute": self.spearman_absolute.to_json(),
                "spearman_pairs_relative": self.spearman_relative.to_json()}


def canonical_lengths(families: Families) -> np.ndarray:
    """(n_queries,) characters of each canonical."""
    return np.array([len(families.corpus[c].code) for c in families.canonical_ids], dtype=np.float64)


def edit_size_vs_deception(sizes: np.ndarray, deceived: Mapping[str, np.ndarray], families: Families) -> EditSize:
    """Over the given models' deceived matrices (one model, or the dense models for the pooled numbers)."""
    mask = families.mutant_mask
    bins = size_bin(sizes)
    mutants_by_bin = {label: int(np.sum(mask & (bins == b))) for b, (label, _, _) in enumerate(BINS)}
    by_bin = {label: Rate(0.0, 0, 0) for label, _, _ in BINS}
    for matrix in deceived.values():
        for b, (label, _, _) in enumerate(BINS):
            by_bin[label] = by_bin[label] + Rate.of(matrix[mask & (bins == b)])
    if deceived:
        stack = np.stack(list(deceived.values()))
        known = ~np.isnan(stack)
        decided = mask & known.any(axis=0)
        rate = np.where(decided, np.nansum(stack, axis=0) / np.maximum(known.sum(axis=0), 1), np.nan)
    else:
        decided = np.zeros_like(mask)
        rate = np.full(mask.shape, np.nan)
    relative = sizes / canonical_lengths(families)[:, None]
    y = rate[decided]
    return EditSize(mutants_by_bin, by_bin, spearman(sizes[decided].astype(float), y), spearman(relative[decided], y))
