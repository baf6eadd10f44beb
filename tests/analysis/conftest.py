"""Fixtures: the bundled dataset and real BM25 reports on it (rank-bm25 fitted directly, no mteb).

Tiny hand-made datasets for hand-computed cases are in ``analysis_helpers``."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_helpers import RealModel

from execretrieval_mteb.analysis.synthetic import report_from_matrix
from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
from execretrieval_mteb.dataset.io import BuiltDataset, load_dataset
from execretrieval_mteb.evaluation.model_report import FrozenScores
from execretrieval_mteb.evaluation.verdicts import passing_from_cache
from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search


@pytest.fixture(scope="session")
def bundled() -> BuiltDataset:
    return load_dataset(BUNDLED_DATASET_DIR)


def _bm25(dataset: BuiltDataset, name: str, k1: float, b: float) -> RealModel:
    model = CodeBM25Search(k1=k1, b=b)
    model.index([{"id": c.corpus_id, "title": "", "text": c.code} for c in dataset.corpus])
    matrix = np.stack([model.scores(q.query) for q in dataset.queries])
    query_ids = tuple(q.query_id for q in dataset.queries)
    corpus_ids = tuple(c.corpus_id for c in dataset.corpus)
    report = report_from_matrix(name, matrix, dataset, similarity="bm25", query_ids=query_ids, corpus_ids=corpus_ids)
    return RealModel(report, FrozenScores(query_ids, corpus_ids, matrix))


@pytest.fixture(scope="session")
def bm25_models(bundled: BuiltDataset) -> list[RealModel]:
    """The benchmark's BM25 (k1 1.5, b 0.75) and a second setting (k1 0.9, b 0.4), on the bundled data.

    Their verdicts are the dataset's truth (each query's canonical passes), which the first assertion
    checks is exactly what the bundled execution cache says."""
    cache = passing_from_cache(bundled)
    assert all(cache[q.query_id] == frozenset(q.correct_corpus_ids) for q in bundled.queries)
    return [_bm25(bundled, "bm25-k1.5-b0.75", 1.5, 0.75), _bm25(bundled, "bm25-k0.9-b0.4", 0.9, 0.4)]
