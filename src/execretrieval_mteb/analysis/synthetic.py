"""Synthetic systems on a real dataset, for the speed benchmark and the tests (nothing else reads this).

A system here is a full query x corpus score matrix; ``report_from_matrix`` turns one into the
``ModelReport`` the evaluation pipeline would build: top ``depth`` per query (widened so no tie
group is split), the dataset's own truth as verdicts (each query's correct snippets pass, nothing
else does: what the build's gates and cross-canonical sweep establish, and exactly what the bundled
execution cache says), and every metric from ``evaluation.scoring``.

``synthetic_systems`` draws dense-model-like embeddings with the benchmark's structure: each task a
random centre, its canonical near it, each mutant one small step from the canonical; queries near
their task's centre, tilted towards the canonical by a per-system skill. Every fourth system rounds
its scores to two decimals, so ties (and fractional exec@k) occur as with BM25.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..dataset.io import BuiltDataset
from ..evaluation.model_report import FrozenScores, ModelIdentity, ModelReport
from ..evaluation.ranking import Ranking
from ..evaluation.scoring import score_rankings
from .geometric_chance import FamilyEmbeddings, Similarity


def report_from_matrix(name: str, matrix: np.ndarray, dataset: BuiltDataset, *, similarity: str,
                       query_ids: tuple[str, ...] | None = None, corpus_ids: tuple[str, ...] | None = None,
                       depth: int = 100) -> ModelReport:
    """The ``ModelReport`` of a system given by its full score matrix (rows: queries, columns: corpus)."""
    query_ids = query_ids or tuple(q.query_id for q in dataset.queries)
    corpus_ids = corpus_ids or tuple(c.corpus_id for c in dataset.corpus)
    n = matrix.shape[1]
    depth = min(depth, n)
    cutoffs = np.partition(matrix, n - depth, axis=1)[:, n - depth]
    correct = {q.query_id: frozenset(q.correct_corpus_ids) for q in dataset.queries}
    rankings, passing = {}, {}
    for qid, row, cutoff in zip(query_ids, matrix, cutoffs, strict=True):
        chosen = np.flatnonzero(row >= cutoff)
        ranking = Ranking.from_scores({corpus_ids[j]: float(row[j]) for j in chosen})
        rankings[qid] = ranking
        passing[qid] = frozenset(c for c in correct[qid] if any(c in g.ids for g in ranking.groups))
    scores = score_rankings(query_ids, rankings, passing, correct)
    return ModelReport(ModelIdentity(name, None, similarity=similarity), "synthetic", "synthetic",
                       query_ids, scores, rankings, passing)


@dataclass(frozen=True)
class SyntheticSystem:
    report: ModelReport
    frozen: FrozenScores
    embeddings: FamilyEmbeddings


def _systems(dataset: BuiltDataset, count: int, seed: int, dim: int) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """(name, query x corpus score matrix, corpus embeddings) of each synthetic system in turn."""
    rng = np.random.default_rng(seed)
    n_queries, n_corpus = len(dataset.queries), len(dataset.corpus)
    column = {c.corpus_id: j for j, c in enumerate(dataset.corpus)}
    entry_row = {q.entry_id: i for i, q in enumerate(dataset.queries)}
    centres = rng.standard_normal((n_queries, dim))
    family = np.array([entry_row.get(c.source_entry_id, 0) for c in dataset.corpus])
    canonical_col = np.array([column[q.correct_corpus_ids[0]] for q in dataset.queries])
    base = centres[family] + 0.3 * rng.standard_normal((n_corpus, dim))
    base[canonical_col] = centres + 0.3 * rng.standard_normal((n_queries, dim))
    is_mutant = np.ones(n_corpus, dtype=bool)
    is_mutant[canonical_col] = False
    base[is_mutant] = base[canonical_col][family[is_mutant]] + 0.15 * rng.standard_normal((int(is_mutant.sum()), dim))
    for s in range(count):
        corpus = base + 0.05 * rng.standard_normal(base.shape)
        skill = 0.2 + 1.6 * s / max(1, count - 1)
        queries = centres + 0.5 * rng.standard_normal(centres.shape)
        queries += skill * (corpus[canonical_col] - centres)
        c = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
        q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
        matrix = (q @ c.T).astype(np.float32)
        if s % 4 == 3:
            matrix = np.round(matrix, 2)
        yield f"synthetic-{s:02d}", matrix, corpus


def synthetic_systems(dataset: BuiltDataset, count: int, seed: int = 0, dim: int = 64, depth: int = 100) -> list[SyntheticSystem]:
    query_ids = tuple(q.query_id for q in dataset.queries)
    corpus_ids = tuple(c.corpus_id for c in dataset.corpus)
    systems = []
    for name, matrix, corpus in _systems(dataset, count, seed, dim):
        report = report_from_matrix(name, matrix, dataset, similarity="cosine", query_ids=query_ids,
                                    corpus_ids=corpus_ids, depth=depth)
        systems.append(SyntheticSystem(report, FrozenScores(query_ids, corpus_ids, matrix),
                                       FamilyEmbeddings(corpus_ids, corpus.astype(np.float32), Similarity.COSINE)))
    return systems


def synthetic_reports(dataset: BuiltDataset, count: int, seed: int = 0, dim: int = 64, depth: int = 100) -> list[ModelReport]:
    """The same systems' reports only (no matrices kept: 100 systems' matrices would take 2 GB)."""
    query_ids = tuple(q.query_id for q in dataset.queries)
    corpus_ids = tuple(c.corpus_id for c in dataset.corpus)
    return [report_from_matrix(name, matrix, dataset, similarity="cosine", query_ids=query_ids, corpus_ids=corpus_ids,
                               depth=depth) for name, matrix, _ in _systems(dataset, count, seed, dim)]
