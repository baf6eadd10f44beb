"""MTEB's saved retrieval predictions (``<task>_predictions.json``) read back as rankings.

``mteb run -t ExecRetrieval -m MODEL --prediction-folder P`` writes them, on any machine; the
evaluator scores them here. They carry the model's name and revision but no dataset identity, so
they are joined to the dataset by id: every query of the dataset must be ranked and every id must
exist in it, or the file is refused with a one-line message naming the mismatch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..errors import ExecRetrievalError
from .ranking import Ranking


class PredictionsError(ExecRetrievalError):
    """A predictions file is unreadable or was not computed on this dataset."""


@dataclass(frozen=True)
class Predictions:
    """A model's name and revision as MTEB recorded them, and one ranking per query."""

    model_name: str
    model_revision: str | None
    rankings: dict[str, Ranking]


def read_predictions(path: Path, subset: str = "default", split: str = "test") -> Predictions:
    """Parse ``{"mteb_model_meta": {...}, subset: {split: {query_id: {corpus_id: score}}}}``."""
    try:
        blob = json.loads(Path(path).read_text(encoding="utf-8"))
        per_query = blob[subset][split]
        meta = blob.get("mteb_model_meta") or {}
        rankings = {
            str(qid): Ranking.from_scores({str(c): float(s) for c, s in docs.items()}) for qid, docs in per_query.items()
        }
    except FileNotFoundError:
        raise PredictionsError(f"{path}: predictions file missing; pass the ExecRetrieval_predictions.json that "
                               "`mteb run --prediction-folder` wrote") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise PredictionsError(f"{path}: not an MTEB predictions file with {subset}/{split} ({type(exc).__name__}: "
                               f"{exc}); pass the ExecRetrieval_predictions.json that mteb wrote") from None
    return Predictions(model_name=str(meta.get("model_name")), model_revision=meta.get("revision"), rankings=rankings)


def check_join(path: Path, predictions: Predictions, dataset: BuiltDataset) -> None:
    """Refuse predictions that were not computed on ``dataset`` (missing or unknown query/snippet ids)."""
    queries = {q.query_id for q in dataset.queries}
    corpus = {c.corpus_id for c in dataset.corpus}
    ranked = set(predictions.rankings)
    fix = f"score it against the dataset it was computed on (--data) or rerun the model on {dataset.root}"
    unknown = sorted(ranked - queries)
    if unknown:
        raise PredictionsError(f"{path}: ranks {len(unknown)} queries absent from the dataset (e.g. {unknown[0]}); {fix}")
    absent = sorted(queries - ranked)
    if absent:
        raise PredictionsError(
            f"{path}: ranks {len(ranked)} of the dataset's {len(queries)} queries (e.g. {absent[0]} is missing); {fix}"
        )
    for qid in sorted(ranked):
        stray = [cid for group in predictions.rankings[qid].groups for cid in group.ids if cid not in corpus]
        if stray:
            raise PredictionsError(f"{path}: query {qid} ranks snippet {stray[0]}, absent from the corpus; {fix}")
