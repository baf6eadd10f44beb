"""Rebuilding a results folder's evaluations from frozen matrices, without any model.

For every model evaluated into the folder on the dataset: a dense model's rankings come from its
``embeddings/<model>.npz`` (scores recomputed as in the run), BM25's from recomputing its scores
(deterministic, from the dataset alone). The rankings then go through the same pipeline as the
run's, so the files it writes are byte-identical to the run's. A model with neither (scored from
someone else's predictions) cannot be rescored, and is named in the error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..dataset.io import BuiltDataset
from ..errors import ExecRetrievalError
from ..evaluation.metric_names import DEPTH
from ..evaluation.pipeline import Evaluation, evaluate_rankings
from .frozen import rankings_from_scores
from .matrices import frozen_scores, is_bm25
from .outputs import gather
from .results_folder import ResultsFolder, model_slug


def rescore_folder(folder: ResultsFolder, dataset: BuiltDataset, **options: Any) -> Iterator[Evaluation]:
    """Every model of the folder on ``dataset``, re-evaluated from its frozen matrices."""
    reports, _ = gather(folder, dataset)
    if not reports:
        raise ExecRetrievalError(f"{folder.root}/evaluation: no model evaluated on this dataset; run one first")
    missing = [r.model.name for r in reports if not is_bm25(r.model.name)
               and not folder.embeddings(model_slug(r.model.name)).is_file()]
    if missing:
        raise ExecRetrievalError(
            f"{folder.root}: no frozen embeddings for {', '.join(missing)} (evaluated from predictions only); "
            "rescore needs `execretrieval run` outputs, or remove those evaluation files"
        )
    for report in reports:
        scores = frozen_scores(folder, report.model.name, dataset)
        assert scores is not None
        yield evaluate_rankings(dataset, report.model, rankings_from_scores(scores, DEPTH), **options)
