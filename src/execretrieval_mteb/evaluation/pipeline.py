"""The evaluation pipeline: rankings -> verdicts of the top k -> per-query scores -> ``ModelReport``.

Every route into the evaluator goes through ``evaluate_rankings``: ``execretrieval run`` (rankings
from the predictions mteb just saved), ``execretrieval evaluate`` (predictions saved by ``mteb
run`` anywhere), and ``execretrieval rescore`` (rankings rebuilt from frozen embeddings). The
depth checked by execution is the deepest k scored (``metric_names.DEPTH``), widened to whole
tie groups, so the metrics never read a verdict that was not established.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..dataset.release import dataset_revision
from .metric_names import DEPTH, K_VALUES
from .model_report import ModelIdentity, ModelReport
from .predictions import Predictions, PredictionsError, check_join, read_predictions
from .ranking import Ranking
from .scoring import score_rankings
from .verdicts import CheckedPairs, check_pairs, passing_from_verdicts

_EMPTY = Ranking(groups=())


@dataclass(frozen=True)
class Evaluation:
    """A model's report and the verdicts it rests on."""

    report: ModelReport
    checked: CheckedPairs


def evaluate_rankings(
    dataset: BuiltDataset,
    model: ModelIdentity,
    rankings: Mapping[str, Ranking],
    *,
    workers: int | None = None,
    progress: bool = False,
    oracle_cache: Path | None = None,
) -> Evaluation:
    """Check every snippet that can reach a query's top ``DEPTH`` and score every metric."""
    query_ids = tuple(q.query_id for q in dataset.queries)
    kept = {qid: _cut(rankings.get(qid, _EMPTY), DEPTH) for qid in query_ids}
    pairs = [(qid, cid) for qid in query_ids for cid in kept[qid].candidates(DEPTH)]
    checked = check_pairs(dataset, pairs, workers=workers, progress=progress, oracle_cache=oracle_cache)
    passing = passing_from_verdicts(query_ids, checked.verdicts)
    relevant = {q.query_id: frozenset(q.correct_corpus_ids) for q in dataset.queries}
    scores = score_rankings(query_ids, kept, passing, relevant, K_VALUES)
    report = ModelReport(
        model=model,
        dataset_fingerprint=dataset.fingerprint,
        dataset_revision=dataset_revision(dataset.fingerprint),
        query_ids=query_ids,
        scores=scores,
        rankings=kept,
        passing=passing,
    )
    return Evaluation(report, checked)


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


def _cut(ranking: Ranking, depth: int) -> Ranking:
    """The tie groups that reach into the top ``depth``: all any metric at k <= depth can see."""
    return Ranking(groups=tuple(ranking.groups_within(depth)))
