"""A ranking as an ordered list of tie groups: the neutral tie rule of every metric.

A canonical and its mutants can receive identical scores (a bag-of-words BM25 cannot see ``<``
versus ``<=``; swapped arguments give the same tokens). Breaking such ties by corpus order or id
would hand the canonical rank 1 whenever the build happened to order it first. Instead every
metric here is the exact expectation under a uniformly random order inside each group of equal
scores: a snippet in a tie group occupying ranks ``s+1 .. s+g`` is equally likely to sit at each of
those ranks. Scores are compared exactly (floats as returned by the model); a model that wants
near-equal scores tied must round them itself. A ranking must hold whole tie groups up to the
largest k scored: mteb retrieves 100 snippets per query for this task, and the BM25 model widens
its cut-off so that it never splits a tie group.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class TieGroup:
    """Snippets with one shared score, occupying ranks ``start + 1 .. start + len(ids)``."""

    start: int
    score: float
    ids: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def end(self) -> int:
        """Rank (1-based) of the group's last position."""
        return self.start + len(self.ids)


@dataclass(frozen=True)
class Ranking:
    """One query's retrieved snippets, best score first, as tie groups."""

    groups: tuple[TieGroup, ...]

    @classmethod
    def from_scores(cls, scores: Mapping[str, float]) -> Ranking:
        """Group snippets by equal score, highest first; the order inside a group carries no meaning."""
        ordered = sorted(scores.items(), key=lambda item: -item[1])
        groups: list[TieGroup] = []
        start = 0
        for score, members in itertools.groupby(ordered, key=lambda item: item[1]):
            ids = tuple(sorted(cid for cid, _ in members))  # sorted only to be deterministic
            groups.append(TieGroup(start=start, score=float(score), ids=ids))
            start += len(ids)
        return cls(groups=tuple(groups))

    @property
    def size(self) -> int:
        return self.groups[-1].end if self.groups else 0

    def groups_within(self, k: int) -> Iterable[TieGroup]:
        """Tie groups that reach into the top k (the last one may straddle rank k)."""
        for group in self.groups:
            if group.start >= k:
                return
            yield group

    def candidates(self, k: int) -> tuple[str, ...]:
        """Every snippet that can appear in the top k under some tie-breaking order."""
        return tuple(cid for group in self.groups_within(k) for cid in group.ids)
