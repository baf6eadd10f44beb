"""The typed result of evaluating one model: what every later stage (leaderboard, statistics,
analyses, figures, Hub release) reads, so none of them needs mteb or the oracle.

A ``ModelReport`` is built by the evaluation pipeline from a model's rankings (MTEB predictions
or frozen score matrices) and the verdicts of its top-k pairs. ``FrozenScores`` is the full
query x corpus score matrix of a model, rebuilt from its frozen embeddings (or BM25's scores);
analyses that need a score outside the predicted top k (a canonical ranked below 100, the
canonical-vs-mutant gap of every query) use it, and say what they could not compute without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ranking import Ranking
from .scoring import PerQueryScores


@dataclass(frozen=True)
class ModelIdentity:
    """Which model, exactly, produced the rankings (the invocation settings of the study's table)."""

    name: str
    """mteb's model name, e.g. ``sentence-transformers/all-MiniLM-L6-v2``."""
    revision: str | None
    prompts: Mapping[str, str] = field(default_factory=dict)
    """Prompt type (``query``/``document``) -> the prefix or instruction put before the text."""
    similarity: str | None = None
    """``cosine``, ``dot`` or ``bm25``."""


def identity_record(identity: ModelIdentity) -> dict[str, Any]:
    """The identity as the files record it (evaluation report, frozen matrices, ``dataset.json``)."""
    return {"model": identity.name, "revision": identity.revision, "prompts": dict(identity.prompts),
            "similarity": identity.similarity}


def identity_from_record(blob: Mapping[str, Any]) -> ModelIdentity:
    """The inverse of ``identity_record`` (missing prompts or similarity read as unknown)."""
    return ModelIdentity(name=str(blob["model"]), revision=blob.get("revision"), prompts=blob.get("prompts") or {},
                         similarity=blob.get("similarity"))


@dataclass(frozen=True)
class ModelReport:
    """One model's evaluation on one dataset.

    ``scores`` holds every metric for every query (``PerQueryScores.values[metric key][query id]``,
    keys from ``metric_names.Metric.key``); ``rankings`` each query's retrieved snippets as tie
    groups, at least whole tie groups down to the deepest k scored; ``passing`` the snippets among
    them that pass all of the query's tests (every other listed snippet was checked and fails).
    """

    model: ModelIdentity
    dataset_fingerprint: str
    dataset_revision: str
    query_ids: tuple[str, ...]
    scores: PerQueryScores
    rankings: Mapping[str, Ranking]
    passing: Mapping[str, frozenset[str]]

    def means(self) -> dict[str, float]:
        return self.scores.means()


@dataclass(frozen=True)
class FrozenScores:
    """A model's full similarity matrix: ``matrix[i, j]`` = score of ``corpus_ids[j]`` for ``query_ids[i]``."""

    query_ids: tuple[str, ...]
    corpus_ids: tuple[str, ...]
    matrix: np.ndarray  # float32, shape (len(query_ids), len(corpus_ids))

    def __post_init__(self) -> None:
        if self.matrix.shape != (len(self.query_ids), len(self.corpus_ids)):
            raise ValueError(
                f"FrozenScores: matrix shape {self.matrix.shape} does not match "
                f"{len(self.query_ids)} queries x {len(self.corpus_ids)} snippets"
            )
