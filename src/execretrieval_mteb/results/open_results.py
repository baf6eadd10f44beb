"""The open task's part of a results folder, and scoring its predictions.

    <results>/open/                                    a results folder of its own (``ResultsFolder`` layout)
      predictions/<org__model>/ExecRetrievalOpen_predictions.json
      mteb/results/<org__model>/<revision>/ExecRetrievalOpen.json
      embeddings/<org__model>.npz                      query and corpus (benchmark + wild) embeddings
      evaluation/<org__model>.json                     ``open_outputs``
      comparison.json, report.md, figures/closed_vs_open.png   closed against open (``analysis.open_comparison``)

Verdicts of both tasks share the folder's ``oracle-cache.sqlite``.
"""

from __future__ import annotations

from pathlib import Path

from ..dataset.wild import OpenPool
from ..evaluation.model_report import ModelIdentity
from .open_outputs import open_report_json, write_open_report
from ..evaluation.open_pipeline import OpenEvaluation, evaluate_open_rankings
from .predictions import PredictionsError, read_predictions
from .results_folder import ResultsFolder, model_slug

OPEN_DIR = "open"
OPEN_PREDICTIONS_FILE = "ExecRetrievalOpen_predictions.json"


def open_folder(folder: ResultsFolder) -> ResultsFolder:
    return ResultsFolder(folder.root / OPEN_DIR)


def open_predictions(folder: ResultsFolder, slug: str) -> Path:
    return open_folder(folder).predictions_dir(slug) / OPEN_PREDICTIONS_FILE


def evaluate_open_predictions(path: Path, pool: OpenPool, model: ModelIdentity | None = None, *,
                              workers: int | None = None, progress: bool = False,
                              oracle_cache: Path | None = None) -> OpenEvaluation:
    """Score an ``ExecRetrievalOpen_predictions.json`` (refused unless its ids join the open pool)."""
    predictions = read_predictions(path)
    queries = {q.query_id for q in pool.closed.queries}
    corpus = {c.corpus_id for c in pool.closed.corpus}
    fix = "pass predictions of ExecRetrievalOpen computed on this wild corpus ($EXECRETRIEVAL_WILD)"
    if predictions.dataset_fingerprint is not None and predictions.dataset_fingerprint != pool.fingerprint:
        raise PredictionsError(f"{path}: computed on another open pool (fingerprint "
                               f"{predictions.dataset_fingerprint[:12]}, this one {pool.fingerprint[:12]}); {fix}")
    if set(predictions.rankings) != queries:
        raise PredictionsError(f"{path}: does not rank exactly the dataset's {len(queries)} queries; {fix}")
    for qid, ranking in sorted(predictions.rankings.items()):
        stray = next((c for g in ranking.groups for c in g.ids if c not in corpus and c not in pool.wild), None)
        if stray is not None:
            raise PredictionsError(f"{path}: query {qid} ranks {stray}, in neither the benchmark nor the wild corpus; {fix}")
    return evaluate_open_rankings(pool, model or predictions.model, predictions.rankings, workers=workers,
                                  progress=progress, oracle_cache=oracle_cache)


def write_open_evaluation(folder: ResultsFolder, evaluation: OpenEvaluation, pool: OpenPool) -> Path:
    path = open_folder(folder).evaluation(model_slug(evaluation.report.model.name))
    write_open_report(path, open_report_json(evaluation, pool))
    return path


def finish_open(folder: ResultsFolder, pool: OpenPool) -> Path | None:
    """The closed-vs-open report over every model evaluated on both pools (None when there is none)."""
    from ..analysis.open_comparison import ModelPair, compare, write_comparison
    from .open_outputs import read_open_report
    from .report import read_report

    pairs = []
    for path in open_folder(folder).evaluations():
        blob = read_open_report(path)
        if blob["dataset"]["fingerprint"] != pool.fingerprint:
            continue
        closed_path = folder.evaluation(path.stem)
        if not closed_path.is_file():
            continue
        closed = read_report(closed_path)
        if closed.dataset_fingerprint != pool.closed.fingerprint:
            continue
        pairs.append(ModelPair(blob["model"], closed, blob))
    if not pairs:
        return None
    return write_comparison(open_folder(folder).root, compare(pairs, pool.closed), len(pool.closed.corpus), len(pool.wild))
