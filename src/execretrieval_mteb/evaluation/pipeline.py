"""The evaluation pipeline: rankings -> verdicts of the top k -> per-query scores -> ``ModelReport``.

Every route into the evaluator goes through ``evaluate_rankings``: ``execretrieval run``,
``execretrieval evaluate`` and ``execretrieval rescore`` all score the predictions mteb saved
(``results.predictions`` reads them back as rankings). The
depth checked by execution is the deepest k scored (``metric_names.DEPTH``), widened to whole
tie groups, so the metrics never read a verdict that was not established.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..dataset.io import BuiltDataset
from ..dataset.release import dataset_revision
from .metric_names import DEPTH, K_VALUES
from .model_report import ModelIdentity, ModelReport
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


def _cut(ranking: Ranking, depth: int) -> Ranking:
    """The tie groups that reach into the top ``depth``: all any metric at k <= depth can see."""
    return Ranking(groups=tuple(ranking.groups_within(depth)))
