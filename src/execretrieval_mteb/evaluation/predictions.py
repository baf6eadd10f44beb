"""MTEB's saved retrieval predictions (``<task>_predictions.json``) read back as rankings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import ExecRetrievalError
from .ranking import Ranking


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
    except FileNotFoundError:
        raise ExecRetrievalError(f"{path}: predictions file missing; rerun the model with a prediction folder") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ExecRetrievalError(f"{path}: not an MTEB predictions file with {subset}/{split} ({exc})") from None
    rankings = {str(qid): Ranking.from_scores({str(c): float(s) for c, s in docs.items()}) for qid, docs in per_query.items()}
    return Predictions(model_name=str(meta.get("model_name")), model_revision=meta.get("revision"), rankings=rankings)
