"""Per-query quantities of one model's ranking that the closed-vs-open comparison needs.

All are exact expectations under the neutral tie rule (``evaluation.ranking``):

- ``wild_share_at_k(q)`` = expected number of wild snippets in the top k / k. A tie group of size
  g starting at rank s contributes ``min(g, k - s) * (wild members / g)``;
- rank-1 miss attribution: the top 1 is a uniformly random member of the first tie group (size
  g); each failing member takes 1/g of a miss, to its cause (``MissCause``): one of the query's
  own mutants, a snippet of another task (mutant or canonical), or a *wild function* (the fourth
  cause, open pool only); the query's own canonical failing would be a bug, counted apart;
- wild deception(q) = 1 if a wild function judged not correct is scored at least as high as the
  query's canonical (a canonical outside the checked top k is below all of them), among the wild
  snippets of the top k; 0 if none is; per model, the mean over queries. (The study's mutant
  deception compares a mutant with its canonical, two scores the pool does not change: it is the
  same number on both pools.)
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping

from .ranking import Ranking


class MissCause(enum.Enum):
    OWN_MUTANT = "own_mutant"
    OTHER_TASK_SNIPPET = "other_task_snippet"
    WILD_FUNCTION = "wild_function"
    OWN_CANONICAL = "own_canonical"


def wild_share_at_k(ranking: Ranking, wild: Collection[str], k: int) -> float:
    expected = 0.0
    for group in ranking.groups_within(k):
        taken = min(group.size, k - group.start)
        expected += taken * sum(cid in wild for cid in group.ids) / group.size
    return expected / k


def miss_masses(ranking: Ranking, passing: Collection[str], own_family: Collection[str], canonical: str,
                wild: Collection[str]) -> dict[MissCause, float]:
    """Expected rank-1 miss mass of one query by cause (sums to 1 - exec@1)."""
    mass = dict.fromkeys(MissCause, 0.0)
    if not ranking.groups:
        return mass
    top = ranking.groups[0]
    for cid in top.ids:
        if cid in passing:
            continue
        if cid in wild:
            cause = MissCause.WILD_FUNCTION
        elif cid == canonical:
            cause = MissCause.OWN_CANONICAL
        elif cid in own_family:
            cause = MissCause.OWN_MUTANT
        else:
            cause = MissCause.OTHER_TASK_SNIPPET
        mass[cause] += 1.0 / top.size
    return mass


def wild_deceived(ranking: Ranking, passing: Collection[str], wild: Collection[str], canonical: str, k: int) -> float:
    """1.0 if an incorrect wild function in the top k is scored at least as high as the canonical."""
    canonical_score = next((g.score for g in ranking.groups if canonical in g.ids), None)
    for group in ranking.groups_within(k):
        if any(cid in wild and cid not in passing for cid in group.ids):
            if canonical_score is None or group.score >= canonical_score:
                return 1.0
    return 0.0


def attribution_shares(masses: Mapping[str, Mapping[MissCause, float]]) -> dict[str, float | None]:
    """Pooled over queries: each cause's share of all expected rank-1 misses."""
    total = sum(sum(m.values()) for m in masses.values())
    return {c.value: (sum(m[c] for m in masses.values()) / total if total else None) for c in MissCause}
