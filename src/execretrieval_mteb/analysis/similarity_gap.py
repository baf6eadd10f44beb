"""Canonical vs best-mutant similarity gap, per query::

    gap(q) = score(q, canonical) - max over q's mutants of score(q, mutant)

``gap <= 0`` means some mutant scores at least the canonical, so the canonical cannot be the
family's certain winner. Reported per model: the share of queries with ``gap <= 0`` (decided also
without the exact gap, see ``family_scores``), and the median and mean gap over the queries whose
gap is known. Gaps are in the model's own score units (cosine, dot or BM25), so compare their signs
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

    @property
    def known(self) -> np.ndarray:
        return self.gaps[~np.isnan(self.gaps)]

    def to_json(self) -> dict[str, Any]:
        known = self.known
        return {
            "share_some_mutant_at_least_canonical": self.share_mutant_at_least,
            "queries_decided": self.decided, "queries_undecided": self.undecided,
            "gap_known": int(known.size),
            "median_gap": float(np.median(known)) if known.size else None,
            "mean_gap": float(np.mean(known)) if known.size else None,
            "gap_quantiles": ({f"{q:g}": float(v) for q, v in zip(QUANTILES, np.quantile(known, QUANTILES), strict=True)}
                              if known.size else None),
        }


def similarity_gap(scores: FamilyScores) -> SimilarityGap:
    deceived = scores.deceived()
    some = np.where(np.nansum(deceived, axis=1) > 0, 1.0, np.nan)
    all_below = np.all((deceived == 0.0) | ~scores.mutant_mask, axis=1)
    some[all_below] = 0.0
    decided = ~np.isnan(some)
    share = float(np.mean(some[decided])) if decided.any() else None
    return SimilarityGap(scores.gap(), share, int(decided.sum()), int((~decided).sum()))
