"""MTEB's saved retrieval predictions (``<task>_predictions.json``) read back as rankings.

``mteb run -t ExecRetrieval -m MODEL --prediction-folder P`` writes them, on any machine; the
evaluator scores them here. They carry the model's name and revision but no dataset identity, so
they are joined to the dataset by id: every query of the dataset must be ranked and every id must
exist in it, or the file is refused with a one-line message naming the mismatch. When the file
lies in a results folder, ``execretrieval run`` wrote the fingerprint of the dataset it ranked next
to it (``dataset.json``); a file whose fingerprint differs is refused too, since a rebuilt dataset
can keep every id while its code changed. Scores must be finite numbers (a model that produced
NaN similarities cannot be ranked).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset
from ..errors import ExecRetrievalError
from ..evaluation.model_report import ModelIdentity, identity_from_record
from ..evaluation.pipeline import Evaluation, evaluate_rankings
from ..evaluation.ranking import Ranking
from .results_folder import PREDICTION_DATASET_FILE


class PredictionsError(ExecRetrievalError):
    """A predictions file is unreadable or was not computed on this dataset."""


@dataclass(frozen=True)
class Predictions:
    """The model (name and revision as MTEB recorded them; prompts and similarity when ``run`` recorded
    them beside the file), one ranking per query, and the dataset fingerprint ``run`` recorded (if any)."""

    model: ModelIdentity
    rankings: dict[str, Ranking]
    dataset_fingerprint: str | None = None


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
    if not meta.get("model_name"):
        raise PredictionsError(f"{path}: no mteb_model_meta.model_name; pass the ExecRetrieval_predictions.json that "
                               "mteb wrote (it names the model)")
    for qid, ranking in rankings.items():
        bad = [g.score for g in ranking.groups if not math.isfinite(g.score)]
        if bad:
            raise PredictionsError(f"{path}: query {qid} has a score of {bad[0]}; the model produced non-finite "
                                   "similarities, re-encode it in a wider dtype (e.g. bf16 or fp32)")
    model = ModelIdentity(name=str(meta["model_name"]), revision=meta.get("revision"))
    record = _run_record(Path(path).parent / PREDICTION_DATASET_FILE)
    fingerprint = record.get("fingerprint")
    return Predictions(model=_recorded_identity(record, model), rankings=rankings,
                       dataset_fingerprint=fingerprint if isinstance(fingerprint, str) and fingerprint else None)


def check_join(path: Path, predictions: Predictions, dataset: BuiltDataset) -> None:
    """Refuse predictions that were not computed on ``dataset`` (missing or unknown query/snippet ids)."""
    queries = {q.query_id for q in dataset.queries}
    corpus = {c.corpus_id for c in dataset.corpus}
    ranked = set(predictions.rankings)
    fix = f"score it against the dataset it was computed on (--data) or rerun the model on {dataset.root}"
    recorded = predictions.dataset_fingerprint
    if recorded is not None and recorded != dataset.fingerprint:
        raise PredictionsError(f"{path}: computed on another dataset (fingerprint {recorded[:12]} in "
                               f"{PREDICTION_DATASET_FILE}, this one {dataset.fingerprint[:12]}); {fix}")
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


def _run_record(path: Path) -> dict[str, Any]:
    """What ``run`` recorded beside a predictions file (empty when there is no readable record)."""
    try:
        blob = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return blob if isinstance(blob, dict) else {}


def _recorded_identity(record: dict[str, Any], model: ModelIdentity) -> ModelIdentity:
    """``model`` with the prompts and similarity ``run`` recorded for that very model (name and revision)."""
    recorded = record.get("model")
    if not isinstance(recorded, dict):
        return model
    try:
        identity = identity_from_record(recorded)
    except (KeyError, TypeError, ValueError):
        return model
    return identity if (identity.name, identity.revision) == (model.name, model.revision) else model


def evaluate_predictions(
    path: Path, dataset: BuiltDataset, model: ModelIdentity | None = None, **options: object
) -> Evaluation:
    """Score an ``ExecRetrieval_predictions.json`` (refused unless it joins ``dataset`` exactly)."""
    predictions = read_predictions(path)
    check_join(path, predictions, dataset)
    return evaluate_rankings(dataset, model or predictions.model, predictions.rankings, **options)  # type: ignore[arg-type]


def evaluate_prediction_files(paths: Sequence[Path], dataset: BuiltDataset, **options: object) -> list[Evaluation]:
    """Score several predictions files: every one is read and joined to ``dataset`` before any is
    scored, so a bad file is refused before the oracle runs or anything is written."""
    loaded: list[tuple[Path, Predictions]] = []
    for path in paths:
        predictions = read_predictions(path)
        check_join(path, predictions, dataset)
        twin = next((p for p, other in loaded if other.model.name == predictions.model.name), None)
        if twin is not None:
            raise PredictionsError(f"{path}: predictions of {predictions.model.name}, like {twin} (one evaluation "
                                   "file per model); pass one of them")
        loaded.append((path, predictions))
    return [
        evaluate_rankings(dataset, p.model, p.rankings, **options)  # type: ignore[arg-type]
        for _, p in loaded
    ]
