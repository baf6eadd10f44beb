"""Pool density against brute force (re-rank every reduced pool), and the d = 4 identity."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from analysis_helpers import RealModel, tiny_dataset, tiny_report

from execretrieval_mteb.analysis.family import Families
from execretrieval_mteb.analysis.pool_density import pool_density
from execretrieval_mteb.analysis.synthetic import report_from_matrix
from execretrieval_mteb.dataset.io import BuiltDataset
from execretrieval_mteb.evaluation.exec_at_k import expected_exec_at_k
from execretrieval_mteb.evaluation.metric_names import MAIN_SCORE
from execretrieval_mteb.evaluation.ranking import Ranking

DATASET = tiny_dataset({e: (f"def {e}(): return 0\n", [(f"def {e}(): return {j + 1}\n", "off_by_one") for j in range(4)])
                        for e in "abcdef"})
FAMILIES = Families.from_dataset(DATASET)
CORPUS_IDS = [c.corpus_id for c in DATASET.corpus]


def _brute(scores: dict[str, float], own_mutants: tuple[str, ...], passing: set[str], d: int) -> float:
    values = []
    for kept in itertools.combinations(own_mutants, d):
        removed = set(own_mutants) - set(kept)
        ranking = Ranking.from_scores({c: s for c, s in scores.items() if c not in removed})
        values.append(expected_exec_at_k(ranking, passing, 1))
    return sum(values) / len(values)


@pytest.mark.parametrize("seed", range(6))
def test_pool_density_from_top_lists_equals_reranking_every_reduced_pool(seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 4, size=(len(FAMILIES.query_ids), len(CORPUS_IDS))).astype(float)  # many ties
    report = report_from_matrix("r", matrix, DATASET, similarity="cosine", depth=12)
    result = pool_density(report, FAMILIES)
    assert result.not_computable == ()
    for i, query in enumerate(DATASET.queries):
        full = dict(zip(CORPUS_IDS, matrix[i], strict=True))
        for d in range(5):
            expected = _brute(full, query.paired_distractor_corpus_ids, set(query.correct_corpus_ids), d)
            assert result.per_query[i, d] == pytest.approx(expected, abs=1e-12), (query.query_id, d)
    assert result.expected_exec_at_1[4] == report.means()[MAIN_SCORE]  # exactly, not approximately
    assert result.matches_leaderboard


def test_a_passing_snippet_outside_the_family_counts_and_short_rankings_are_not_computable() -> None:
    scores = {q.query_id: {c: 0.0 for c in CORPUS_IDS} for q in DATASET.queries}
    scores["q_a"].update({"a_c": 2.0, "a_m0": 3.0, "b_c": 3.0, "a_m1": 3.0})
    passing = {q.query_id: set(q.correct_corpus_ids) for q in DATASET.queries}
    passing["q_a"].add("b_c")  # say b's canonical also passes a's tests
    scores["q_b"] = {"b_c": 1.0, "b_m0": 1.0}  # a ranking listing only the family
    report = tiny_report("p", DATASET, scores, passing)
    result = pool_density(report, FAMILIES)
    # q_a, d = 0: top is b_c alone (3.0) and passes -> 1; d = 4: {a_m0, b_c, a_m1} -> 1/3
    row = FAMILIES.index()["q_a"]
    assert result.per_query[row, 0] == 1.0
    assert result.per_query[row, 4] == pytest.approx(1 / 3)
    assert result.per_query[row, 1] == pytest.approx((1 / 2 + 1 / 2 + 1 + 1) / 4)
    assert result.not_computable == ("q_b",)
    assert np.isnan(result.per_query[FAMILIES.index()["q_b"]]).all()


def test_full_pool_equals_the_leaderboard_on_real_bm25(bundled: BuiltDataset, bm25_models: list[RealModel]) -> None:
    families = Families.from_dataset(bundled)
    for model in bm25_models:
        result = pool_density(model.report, families)
        assert result.not_computable == ()
        assert result.expected_exec_at_1[-1] == model.report.means()[MAIN_SCORE]
        curve = [v for v in result.expected_exec_at_1 if v is not None]
        assert curve == sorted(curve, reverse=True)  # every kept mutant can only take rank 1 away
