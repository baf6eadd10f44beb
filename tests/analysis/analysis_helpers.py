"""Tiny hand-made datasets and reports for hand-computed cases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from execretrieval_mteb.dataset.io import BuiltDataset
from execretrieval_mteb.dataset.schema import CorpusRecord, Label, QueryRecord
from execretrieval_mteb.evaluation.model_report import FrozenScores, ModelIdentity, ModelReport
from execretrieval_mteb.evaluation.ranking import Ranking
from execretrieval_mteb.evaluation.scoring import score_rankings


@dataclass(frozen=True)
class RealModel:
    """A model's report and its full score matrix (BM25 on the bundled data, see ``conftest``)."""

    report: ModelReport
    frozen: FrozenScores


def tiny_dataset(families: dict[str, tuple[str, list[tuple[str, str]]]], domain: str = "d") -> BuiltDataset:
    """``{entry: (canonical code, [(mutant code, bug type), ...])}`` -> a dataset; query ids ``q_<entry>``,
    corpus ids ``<entry>_c`` and ``<entry>_m<j>``."""
    queries, corpus = [], []
    for entry, (canonical, mutants) in families.items():
        corpus.append(CorpusRecord(f"{entry}_c", canonical, Label.CORRECT, entry))
        ids = []
        for j, (code, bug_type) in enumerate(mutants):
            corpus.append(CorpusRecord(f"{entry}_m{j}", code, Label.INCORRECT, entry, bug_type))
            ids.append(f"{entry}_m{j}")
        queries.append(QueryRecord(f"q_{entry}", f"query {entry}", ("assert True",), (f"{entry}_c",), tuple(ids),
                                   entry, domain=domain))
    return BuiltDataset(Path("tiny"), tuple(queries), tuple(corpus), (), {})


def tiny_report(name: str, dataset: BuiltDataset, scores: dict[str, dict[str, float]],
                passing: dict[str, set[str]] | None = None, similarity: str = "cosine") -> ModelReport:
    """A report from hand-written rankings (query id -> {corpus id: score}); verdicts default to the canonicals."""
    rankings = {qid: Ranking.from_scores(s) for qid, s in scores.items()}
    correct = {q.query_id: frozenset(q.correct_corpus_ids) for q in dataset.queries}
    if passing is None:
        passing = {qid: {c for c in correct[qid] if c in scores.get(qid, {})} for qid in correct}
    query_ids = tuple(q.query_id for q in dataset.queries)
    per_query = score_rankings(query_ids, rankings, {q: frozenset(p) for q, p in passing.items()}, correct)
    return ModelReport(ModelIdentity(name, None, similarity=similarity), "tiny", "tiny", query_ids, per_query,
                       rankings, {q: frozenset(p) for q, p in passing.items()})
