"""The typed result of every statistic and analysis, and its machine-readable form (``analyses.json``).

``analyses.json``::

    {"models": [...leaderboard order], "n_queries": n,
     "score_sources": {model: "frozen_scores" | "rankings"},
     "<analysis>": {...}   for every ``Analysis``, per model ({model: {...}}) and, where it applies, "pooled"}

An analysis a model's inputs do not allow says so in place of its numbers:
``{"computed": false, "reason": "..."}``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .deception import Deception
from .difficulty import Difficulty
from .edit_size import EditSize
from .family_accuracy import FamilyAccuracy
from .family_scores import ScoreSource
from .geometric_chance import GeometricChance
from .intervals import Interval
from .length_bias import LengthBias
from .miss_attribution import MissAttribution
from .not_computed import NotComputed
from .pairwise import PairResult
from .per_domain import PerDomain
from .pool_density import PoolDensity
from .similarity_gap import SimilarityGap
from .stacked import StackedDeception
from .statistics import Statistics
from .structure_baseline import StructureBaseline
from .truncation import Truncation


class Analysis(enum.Enum):
    MISS_ATTRIBUTION = "rank1_miss_attribution"
    SIMILARITY_GAP = "similarity_gap"
    DECEPTION = "deception_by_bug_type"
    POOL_DENSITY = "pool_density"
    EDIT_SIZE = "edit_size"
    STACKED = "stacked_mutations"
    PER_DOMAIN = "per_domain"
    DIFFICULTY = "query_difficulty"
    FAMILY_ACCURACY = "family_accuracy"
    STRUCTURE_BASELINE = "structure_baseline"
    GEOMETRIC_CHANCE = "geometric_chance"
    LENGTH_BIAS = "length_bias"
    TRUNCATION = "truncation"


@dataclass(frozen=True)
class AnalysisResult:
    statistics: Statistics
    sources: Mapping[str, ScoreSource]
    miss_attribution: Mapping[str, MissAttribution]
    similarity_gap: Mapping[str, SimilarityGap]
    deception: Mapping[str, Deception]
    dense_models: tuple[str, ...]
    """The models the pooled numbers pool (every model but BM25, as the study pools its dense ones)."""
    deception_pooled: Deception
    pool_density: Mapping[str, PoolDensity]
    edit_size: Mapping[str, EditSize]
    edit_size_pooled: EditSize
    stacked: Mapping[str, StackedDeception | NotComputed] | NotComputed
    stacked_pooled: StackedDeception | NotComputed
    """Over the dense models with stacked scores (per query first, then over models)."""
    per_domain: PerDomain
    difficulty: Difficulty
    family_accuracy: Mapping[str, FamilyAccuracy]
    structure_baseline: StructureBaseline
    geometric_chance: Mapping[str, GeometricChance | NotComputed]
    length_bias: Mapping[str, LengthBias]
    length_bias_pooled: LengthBias
    truncation: Mapping[str, Truncation | NotComputed]
    files: tuple[Path, ...] = field(default=())

    @property
    def models(self) -> tuple[str, ...]:
        """Leaderboard order."""
        return self.statistics.scores.models

    @property
    def intervals(self) -> Mapping[str, Mapping[str, Interval]]:
        return self.statistics.intervals

    @property
    def pairs(self) -> tuple[PairResult, ...]:
        return self.statistics.pairs

    def analyses_json(self) -> dict[str, Any]:
        def per_model(values: Mapping[str, Any]) -> dict[str, Any]:
            return {model: values[model].to_json() for model in self.models if model in values}

        stacked = (self.stacked.to_json() if isinstance(self.stacked, NotComputed)
                   else {"by_model": per_model(self.stacked), "pooled": self.stacked_pooled.to_json()})
        blobs: dict[Analysis, Any] = {
            Analysis.MISS_ATTRIBUTION: per_model(self.miss_attribution),
            Analysis.SIMILARITY_GAP: per_model(self.similarity_gap),
            Analysis.DECEPTION: {"by_model": per_model(self.deception),
                                 "pooled": {"models": list(self.dense_models), **self.deception_pooled.to_json()}},
            Analysis.POOL_DENSITY: per_model(self.pool_density),
            Analysis.EDIT_SIZE: {"by_model": per_model(self.edit_size),
                                 "pooled": {"models": list(self.dense_models), **self.edit_size_pooled.to_json()}},
            Analysis.STACKED: stacked,
            Analysis.PER_DOMAIN: self.per_domain.to_json(),
            Analysis.DIFFICULTY: self.difficulty.to_json(),
            Analysis.FAMILY_ACCURACY: per_model(self.family_accuracy),
            Analysis.STRUCTURE_BASELINE: self.structure_baseline.to_json(),
            Analysis.GEOMETRIC_CHANCE: per_model(self.geometric_chance),
            Analysis.LENGTH_BIAS: {"by_model": per_model(self.length_bias),
                                   "pooled": {"models": list(self.dense_models), **self.length_bias_pooled.to_json()}},
            Analysis.TRUNCATION: per_model(self.truncation),
        }
        return {
            "models": list(self.models),
            "n_queries": len(self.statistics.scores.query_ids),
            "score_sources": {m: self.sources[m].value for m in self.models},
            **{analysis.value: blobs[analysis] for analysis in Analysis},
        }
