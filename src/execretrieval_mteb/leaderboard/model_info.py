"""What the leaderboard shows beside the scores: the model's card facts and its exec@1 per domain.

- ``model_meta``: from mteb's ``model_meta.json`` next to the model's result in the results folder's
  mteb cache (``results/<org__model>/<revision>/``): the model's page (``reference``), its size
  (``n_parameters``), ``embed_dim``, ``max_tokens`` and ``license``, as MTEB's leaderboard shows them.
- ``domain_scores``: exec@1 over each domain's queries, with a 95 % percentile bootstrap interval
  over those queries (``analysis.bootstrap``: the same resampling, replicate count and seed as the
  folder's other intervals), read from the model's evaluation file (each query's domain and exec@1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.bootstrap import percentile_interval, replicate_means, resample_counts
from ..analysis.config import StatsConfig
from ..evaluation.metric_names import MAIN_SCORE
from ..results.results_folder import ResultsFolder, model_slug
from ..analysis.intervals import Interval

META_FIELDS = ("reference", "n_parameters", "embed_dim", "max_tokens", "license")


def model_meta(folder: ResultsFolder, model: str, revision: str | None) -> dict[str, Any]:
    """The card facts of ``model`` at ``revision`` from the folder's mteb cache (empty when it has none)."""
    base = folder.mteb_cache / "results" / model_slug(model)
    candidates = [base / revision / "model_meta.json"] if revision else []
    candidates += sorted(base.glob("*/model_meta.json"))
    for path in candidates:
        if path.is_file():
            blob = json.loads(path.read_text(encoding="utf-8"))
            return {key: blob.get(key) for key in META_FIELDS}
    return {}


def domain_scores(evaluation: Path, metric: str = MAIN_SCORE, config: StatsConfig | None = None) -> dict[str, Interval]:
    """``metric`` per domain with its percentile bootstrap interval, from an evaluation file's per-query rows."""
    config = config or StatsConfig()
    blob = json.loads(Path(evaluation).read_text(encoding="utf-8"))
    values: dict[str, list[float]] = {}
    for query in blob.get("per_query", []):
        if query.get("domain") and metric in query.get("metrics", {}):
            values.setdefault(str(query["domain"]), []).append(float(query["metrics"][metric]))
    out: dict[str, Interval] = {}
    for domain, scores in sorted(values.items()):
        column = np.asarray(scores, dtype=np.float64)[:, None]
        counts = resample_counts(len(scores), config.bootstrap_replicates, config.bootstrap_seed)
        low, high = percentile_interval(replicate_means(counts, column), config.confidence)
        out[domain] = Interval(float(column.mean()), float(low[0]), float(high[0]))
    return out


def with_model_info(rows: list, folder: ResultsFolder, evaluations: Mapping[str, Path]) -> list:
    """``rows`` with ``model_meta`` and ``domains`` filled in (``evaluations``: model -> its evaluation file)."""
    import dataclasses

    return [dataclasses.replace(row, model_meta=model_meta(folder, row.model, row.revision),
                                domains=domain_scores(evaluations[row.model])) for row in rows]
