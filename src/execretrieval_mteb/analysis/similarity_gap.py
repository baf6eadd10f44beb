"""Canonical vs best-mutant similarity gap, per query::

    gap(q) = score(q, canonical) - max over q's mutants of score(q, mutant)

The study's statistic is the share of queries with ``gap < 0``: the canonical scores strictly
below at least one of its mutants (66.8-78.4 % for its leading systems). Next to it, the share with
``gap <= 0`` (some mutant at least ties the canonical), which differs where scores tie: BM25's bag
of words ties every swapped-argument mutant, so its two shares are far apart. Both are decided also
without the exact gap where a ranking allows (see ``family_scores``); the median and mean gap are
over the queries whose gap is known. Gaps are in the model's own score units (cosine, dot or BM25), so compare their signs
across models, not their sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .family_scores import FamilyScores

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass(frozen=True)
class SimilarityGap:
    gaps: np.ndarray
    """Per query, NaN where unknown (kept for the histogram)."""
    share_mutant_at_least: float | None
    decided: int
    undecided: int
    share_mutant_above: float | None
    """Strictly above: the study's statistic."""
    decided_above: int

    @property
    def known(self) -> np.ndarray:
        return self.gaps[~np.isnan(self.gaps)]

    def to_json(self) -> dict[str, Any]:
        known = self.known
        return {
            "share_some_mutant_above_canonical": self.share_mutant_above,
            "queries_decided_above": self.decided_above,
            "share_some_mutant_at_least_canonical": self.share_mutant_at_least,
            "queries_decided": self.decided, "queries_undecided": self.undecided,
            "gap_known": int(known.size),
            "median_gap": float(np.median(known)) if known.size else None,
            "mean_gap": float(np.mean(known)) if known.size else None,
            "gap_quantiles": ({f"{q:g}": float(v) for q, v in zip(QUANTILES, np.quantile(known, QUANTILES), strict=True)}
                              if known.size else None),
        }


def _some(matrix: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per query: 1 when some mutant's entry is 1, 0 when all are 0, NaN when undecided."""
    some = np.where(np.nansum(matrix, axis=1) > 0, 1.0, np.nan)
    some[np.all((matrix == 0.0) | ~mask, axis=1)] = 0.0
    return some


def _share(values: np.ndarray) -> tuple[float | None, int]:
    decided = ~np.isnan(values)
    return (float(np.mean(values[decided])) if decided.any() else None), int(decided.sum())


def similarity_gap(scores: FamilyScores) -> SimilarityGap:
    at_least, decided = _share(_some(scores.deceived(), scores.mutant_mask))
    above, decided_above = _share(_some(scores.above(), scores.mutant_mask))
    return SimilarityGap(scores.gap(), at_least, decided, scores.canonical.size - decided, above, decided_above)
