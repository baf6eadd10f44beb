"""Rank-1 miss attribution: when a model's top 1 fails, what took rank 1?

Under the neutral tie rule the top 1 is a uniformly random member of the first tie group, of size
g. Each failing member of that group is the top 1 with probability 1/g, so a query contributes
``1/g`` of a miss to the category of each failing member, and its expected misses are
``(failing members) / g = 1 - exec@1``. Per model::

    share(category) = sum over queries of the mass of that category / sum over queries of the expected misses

Categories (``MissWinner``): one of the query's own mutants, a snippet of another task (one of its
mutants), another task's canonical; ``own_canonical`` only if the verdicts record the query's own
canonical as failing (they should not), ``not_in_dataset`` for an id the dataset lacks. Own-mutant
misses are further split by the winning mutant's bug type (shares of all misses). A query without
a ranking has no top 1 to attribute and is left out.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..dataset.schema import Label
from ..evaluation.model_report import ModelReport
from .family import Families


class MissWinner(enum.Enum):
    OWN_MUTANT = "own_mutant"
    OTHER_TASK_SNIPPET = "other_task_snippet"
    OTHER_CANONICAL = "other_canonical"
    OWN_CANONICAL = "own_canonical"
    NOT_IN_DATASET = "not_in_dataset"


@dataclass(frozen=True)
class MissAttribution:
    expected_misses: float
    mass: dict[MissWinner, float]
    own_mutant_by_bug_type: dict[str, float]

    def share(self, winner: MissWinner) -> float | None:
        return self.mass[winner] / self.expected_misses if self.expected_misses else None

    def to_json(self) -> dict[str, Any]:
        total = self.expected_misses
        return {
            "expected_misses": total,
            "share": {w.value: self.share(w) for w in MissWinner},
            "own_mutant_share_by_bug_type": {bt: (v / total if total else None)
                                             for bt, v in sorted(self.own_mutant_by_bug_type.items())},
        }


def miss_attribution(report: ModelReport, families: Families) -> MissAttribution:
    entry_of = dict(zip(families.query_ids, families.entry_ids, strict=True))
    mass: dict[MissWinner, float] = dict.fromkeys(MissWinner, 0.0)
    by_type: dict[str, float] = defaultdict(float)
    for bt in families.bug_type_names():
        by_type[bt] = 0.0
    total = 0.0
    for qid in families.query_ids:
        ranking = report.rankings.get(qid)
        if ranking is None or not ranking.groups:
            continue
        top = ranking.groups[0]
        passing = report.passing.get(qid, frozenset())
        weight = 1.0 / top.size
        for cid in top.ids:
            if cid in passing:
                continue
            total += weight
            record = families.corpus.get(cid)
            if record is None:
                winner = MissWinner.NOT_IN_DATASET
            elif record.source_entry_id == entry_of[qid]:
                winner = MissWinner.OWN_CANONICAL if record.label is Label.CORRECT else MissWinner.OWN_MUTANT
                if winner is MissWinner.OWN_MUTANT:
                    by_type[record.bug_type or ""] += weight
            else:
                winner = MissWinner.OTHER_CANONICAL if record.label is Label.CORRECT else MissWinner.OTHER_TASK_SNIPPET
            mass[winner] += weight
    return MissAttribution(total, mass, dict(by_type))
