"""One model's scores of each family's members, from its frozen matrix or from its rankings alone.

With a ``FrozenScores`` matrix every score is known. With only the predicted rankings (mteb keeps
the top 100 per query) a member outside the ranking has no score, but it is known to score at most
``bound``, the lowest listed score of that query (a ranking is a top-N of the whole corpus). That
is often enough to decide a comparison, and the helpers here decide every one they can::

    mutant listed,   canonical listed     ->  compare the scores
    mutant unlisted, canonical listed     ->  mutant <= bound: below the canonical if bound < canonical
    mutant listed,   canonical unlisted   ->  canonical <= bound <= mutant: the mutant is at least the canonical
    both unlisted                         ->  undecided (NaN)

Every analysis reports how many (query, member) cases it could not decide, so nothing is silently
dropped. Scores are compared exactly, as in the metrics' tie rule (``evaluation.ranking``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..evaluation.model_report import FrozenScores, ModelReport
from .family import Families


class ScoreSource(enum.Enum):
    FROZEN = "frozen_scores"
    RANKINGS = "rankings"


@dataclass(frozen=True)
class FamilyScores:
    model: str
    source: ScoreSource
    canonical: np.ndarray
    """(n_queries,) the canonical's score, NaN when unknown."""
    mutants: np.ndarray
    """(n_queries, width) each mutant's score, NaN when unknown or absent (see ``Families.mutant_mask``)."""
    bound: np.ndarray
    """(n_queries,) an upper bound of every unknown member's score; -inf when none is unknown."""
    mutant_mask: np.ndarray

    def deceived(self) -> np.ndarray:
        """(n_queries, width): 1.0 when the mutant scores at least the canonical, 0.0 when below, NaN when undecided or absent."""
        return self._beats(np.greater_equal)

    def above(self) -> np.ndarray:
        """(n_queries, width): 1.0 when the mutant scores strictly above the canonical, 0.0 when at most,
        NaN when undecided or absent (the similarity gap's strict count; ``deceived`` counts ties too)."""
        return self._beats(np.greater)

    def _beats(self, beats: np.ufunc) -> np.ndarray:
        """``beats(mutant, canonical)`` where it is decided. An unknown score is at most ``bound``: an
        unknown mutant does not beat a known canonical that ``bound`` does not beat, and a known mutant
        beats an unknown canonical when it beats ``bound`` (always, for ``>=``: a known score is at least it)."""
        c = self.canonical[:, None]
        m = self.mutants
        b = self.bound[:, None]
        c_known, m_known = ~np.isnan(c), ~np.isnan(m)
        out = np.full(m.shape, np.nan)
        both = c_known & m_known
        out[both] = beats(m, c)[both]
        out[c_known & ~m_known & ~beats(b, c)] = 0.0
        out[~c_known & m_known & beats(m, b)] = 1.0
        out[~self.mutant_mask] = np.nan
        return out

    def family_accuracy(self) -> np.ndarray:
        """(n_queries,) probability, under random tie-breaking, that the canonical ranks first in its
        family: 0 if a mutant scores above it, else 1 / (1 + mutants tied with it); NaN when undecided."""
        c = self.canonical[:, None]
        m = np.where(self.mutant_mask, self.mutants, -np.inf)
        known = ~np.isnan(m)
        above = (known & (m > c)).any(axis=1)
        tied = (known & (m == c)).sum(axis=1)
        unknown_mutants = (~known).any(axis=1)
        decided_c = ~np.isnan(self.canonical) & (~unknown_mutants | (self.bound < self.canonical))
        out = np.where(above, 0.0, np.where(decided_c, 1.0 / (1.0 + tied), np.nan))
        # canonical unlisted: a listed mutant strictly above the bound beats it for sure
        beaten = np.isnan(self.canonical) & (known & (m > self.bound[:, None])).any(axis=1)
        out[beaten] = 0.0
        return out

    def gap(self) -> np.ndarray:
        """(n_queries,) canonical score minus the best mutant's; NaN unless the canonical and at least
        one mutant are listed (unlisted mutants then score no more than the listed ones)."""
        m = np.where(self.mutant_mask, self.mutants, np.nan)
        any_known = (~np.isnan(m)).any(axis=1)
        best = np.full(len(m), np.nan)
        best[any_known] = np.nanmax(m[any_known], axis=1)
        return self.canonical - best


def _from_frozen(families: Families, frozen: FrozenScores, model: str) -> FamilyScores:
    rows = {qid: i for i, qid in enumerate(frozen.query_ids)}
    n, width = families.size, families.width
    canonical = np.full(n, np.nan)
    mutants = np.full((n, width), np.nan)
    bound = np.full(n, -np.inf)
    row_index = np.fromiter((rows.get(q, -1) for q in families.query_ids), dtype=np.int64, count=n)
    canon_index, mut_index = families.columns(frozen.corpus_ids)
    matrix = frozen.matrix
    ok = (row_index >= 0) & (canon_index >= 0)
    canonical[ok] = matrix[row_index[ok], canon_index[ok]]
    ok2 = (row_index[:, None] >= 0) & (mut_index >= 0) & families.mutant_mask
    r2 = np.broadcast_to(row_index[:, None], (n, width))
    mutants[ok2] = matrix[r2[ok2], mut_index[ok2]]
    missing = (row_index < 0) | (canon_index < 0) | ((mut_index < 0) & families.mutant_mask).any(axis=1)
    bound[missing] = np.inf  # a member the matrix lacks could score anything
    return FamilyScores(model, ScoreSource.FROZEN, canonical, mutants, bound, families.mutant_mask)


def _from_rankings(families: Families, report: ModelReport) -> FamilyScores:
    n, width = families.size, families.width
    canonical = np.full(n, np.nan)
    mutants = np.full((n, width), np.nan)
    bound = np.full(n, np.inf)
    for i, qid in enumerate(families.query_ids):
        ranking = report.rankings.get(qid)
        if ranking is None or not ranking.groups:
            continue
        listed = {cid: group.score for group in ranking.groups for cid in group.ids}
        bound[i] = ranking.groups[-1].score
        canonical[i] = listed.get(families.canonical_ids[i], np.nan)
        for j in range(width):
            if families.mutant_mask[i, j]:
                mutants[i, j] = listed.get(str(families.mutant_ids[i, j]), np.nan)
    return FamilyScores(report.model.name, ScoreSource.RANKINGS, canonical, mutants, bound, families.mutant_mask)


def family_scores(families: Families, report: ModelReport, frozen: FrozenScores | None) -> FamilyScores:
    """From the frozen matrix when there is one (every score known), else from the rankings."""
    if frozen is not None:
        return _from_frozen(families, frozen, report.model.name)
    return _from_rankings(families, report)


def all_family_scores(
    families: Families, reports: list[ModelReport], frozen: Mapping[str, FrozenScores] | None
) -> dict[str, FamilyScores]:
    frozen = frozen or {}
    return {r.model.name: family_scores(families, r, frozen.get(r.model.name)) for r in reports}
