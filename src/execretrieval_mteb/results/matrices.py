"""A model's full score matrix (and corpus embeddings) from a results folder, without the model.

Dense models: from their frozen embeddings (``embeddings/<org__model>.npz``), scores recomputed
as in the run. BM25: recomputed from the dataset alone (it is deterministic). The
analyses that need scores outside the predicted top k (similarity gap, deception, geometric
chance level) read them here.
"""

from __future__ import annotations

import numpy as np

from ..dataset.io import BuiltDataset
from ..evaluation.model_report import FrozenScores
from .frozen import FrozenEmbeddings, FrozenError, load_frozen
from .results_folder import ResultsFolder, model_slug


def bm25_scores(dataset: BuiltDataset) -> FrozenScores:
    """The code-aware BM25's full score matrix over ``dataset`` (the same numbers its mteb search returns)."""
    from ..mteb_task.bm25 import CodeBM25Search

    model = CodeBM25Search()
    model.index([{"id": c.corpus_id, "title": "", "text": c.code} for c in dataset.corpus])
    matrix = np.vstack([model.scores(q.query) for q in dataset.queries])
    return FrozenScores(tuple(q.query_id for q in dataset.queries), tuple(c.corpus_id for c in dataset.corpus), matrix)


def is_bm25(name: str) -> bool:
    from ..mteb_task.bm25 import MODEL_NAME

    return name == MODEL_NAME


def frozen_embeddings(folder: ResultsFolder, model_name: str, dataset: BuiltDataset) -> FrozenEmbeddings | None:
    """A dense model's frozen embeddings in the folder (None when there are none); refused if from other data."""
    path = folder.embeddings(model_slug(model_name))
    if not path.is_file():
        return None
    frozen = load_frozen(path)
    if frozen.dataset_fingerprint != dataset.fingerprint:
        raise FrozenError(f"{path}: computed on another dataset (fingerprint {frozen.dataset_fingerprint[:12]}); "
                          "use the --data it was computed on")
    return frozen


def stacked_scores(folder: ResultsFolder, model_name: str, dataset: BuiltDataset) -> FrozenScores | None:
    """Every query against the dataset's stacked mutants (companion data, never in the corpus).

    BM25 scores them against its index's statistics (no encoding needed); a dense model needs its
    ``embeddings/<model>.stacked.npz`` from ``run --stacked``. None when neither applies.
    """
    if not dataset.stacked:
        return None
    ids = tuple(r.corpus_id for r in dataset.stacked)
    if is_bm25(model_name):
        from ..mteb_task.bm25 import CodeBM25Search

        model = CodeBM25Search()
        model.index([{"id": c.corpus_id, "title": "", "text": c.code} for c in dataset.corpus])
        matrix = model.score_extra([q.query for q in dataset.queries], [r.code for r in dataset.stacked])
        return FrozenScores(tuple(q.query_id for q in dataset.queries), ids, matrix)
    path = folder.stacked_embeddings(model_slug(model_name))
    if not path.is_file():
        return None
    frozen = load_frozen(path)
    if frozen.dataset_fingerprint != dataset.fingerprint or frozen.corpus_ids != ids:
        raise FrozenError(f"{path}: computed on other stacked mutants; rerun the model with `execretrieval run --stacked`")
    return frozen.scores()
