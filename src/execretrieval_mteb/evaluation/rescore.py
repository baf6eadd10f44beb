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

import numpy as np

from ..dataset.io import BuiltDataset
from ..errors import ExecRetrievalError
from .frozen import FrozenError, load_frozen, rankings_from_scores
from .metric_names import DEPTH
from .model_report import FrozenScores
from .outputs import gather
from .pipeline import Evaluation, evaluate_rankings
from .results_folder import ResultsFolder, model_slug


def bm25_scores(dataset: BuiltDataset) -> FrozenScores:
    """The code-aware BM25's full score matrix over ``dataset`` (the same numbers its mteb search returns)."""
    from ..mteb_task.bm25 import CodeBM25Search

    model = CodeBM25Search()
    model.index([{"id": c.corpus_id, "title": "", "text": c.code} for c in dataset.corpus])
    matrix = np.vstack([model.scores(q.query) for q in dataset.queries])
    return FrozenScores(tuple(q.query_id for q in dataset.queries), tuple(c.corpus_id for c in dataset.corpus), matrix)


def is_bm25(name: str) -> bool:
    from ..mteb_task.bm25 import CodeBM25Search

    return name == CodeBM25Search().mteb_model_meta.name


def frozen_scores(folder: ResultsFolder, model_name: str, dataset: BuiltDataset) -> FrozenScores | None:
    """The model's full score matrix from the folder's frozen matrices (None when there are none)."""
    if is_bm25(model_name):
        return bm25_scores(dataset)
    path = folder.embeddings(model_slug(model_name))
    if not path.is_file():
        return None
    frozen = load_frozen(path)
    if frozen.dataset_fingerprint != dataset.fingerprint:
        raise FrozenError(f"{path}: computed on another dataset (fingerprint {frozen.dataset_fingerprint[:12]}); "
                          "rescore with the --data it was computed on")
    return frozen.scores()


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
