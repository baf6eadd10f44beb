"""exec@k, execution_precision@k, nDCG@k and their means on untied rankings."""

from __future__ import annotations

import math

import pytest

from execretrieval_mteb.evaluation.exec_at_k import expected_exec_at_k
from execretrieval_mteb.evaluation.execution_precision import expected_execution_precision_at_k
from execretrieval_mteb.evaluation.metric_names import MAIN_SCORE, Metric
from execretrieval_mteb.evaluation.ndcg import expected_ndcg_at_k
from execretrieval_mteb.evaluation.ranking import Ranking
from execretrieval_mteb.evaluation.scoring import score_rankings

RANKED = Ranking.from_scores({"m1": 0.9, "m2": 0.8, "ok": 0.7, "m3": 0.6, "ok2": 0.1})


def test_exec_at_k_is_the_first_rank_with_a_passing_snippet() -> None:
    assert [expected_exec_at_k(RANKED, {"ok", "ok2"}, k) for k in (1, 2, 3, 5)] == [0.0, 0.0, 1.0, 1.0]
    assert expected_exec_at_k(RANKED, set(), 10) == 0.0


def test_execution_precision_divides_by_k_even_when_fewer_are_retrieved() -> None:
    assert expected_execution_precision_at_k(RANKED, {"ok", "ok2"}, 3) == pytest.approx(1 / 3)
    assert expected_execution_precision_at_k(RANKED, {"ok", "ok2"}, 10) == pytest.approx(2 / 10)


def test_ndcg_binary_relevance() -> None:
    assert expected_ndcg_at_k(RANKED, {"ok"}, 3) == pytest.approx(1 / math.log2(4))
    two = 1 / math.log2(4) + 1 / math.log2(6)
    ideal = 1 + 1 / math.log2(3)
    assert expected_ndcg_at_k(RANKED, {"ok", "ok2"}, 5) == pytest.approx(two / ideal)
    assert expected_ndcg_at_k(RANKED, {"ok"}, 2) == 0.0


def test_at_k_1_the_three_metrics_coincide_when_the_correct_snippet_is_the_only_passing_one() -> None:
    for ranking in (RANKED, Ranking.from_scores({"ok": 1.0, "m1": 0.5})):
        values = {expected_exec_at_k(ranking, {"ok"}, 1), expected_execution_precision_at_k(ranking, {"ok"}, 1),
                  expected_ndcg_at_k(ranking, {"ok"}, 1)}
        assert len(values) == 1


def test_scores_are_unweighted_means_and_missing_rankings_score_zero() -> None:
    per_query = score_rankings(
        ["q1", "q2"], {"q1": Ranking.from_scores({"ok": 1.0, "bad": 0.5})},
        passing={"q1": {"ok"}, "q2": {"ok"}}, relevant={"q1": {"ok"}, "q2": {"ok"}}, k_values=(1, 3),
    )
    means = per_query.means()
    assert means[MAIN_SCORE] == 0.5
    assert per_query.values[Metric.EXEC.key(1)] == {"q1": 1.0, "q2": 0.0}
    assert set(means) == {m.key(k) for m in Metric for k in (1, 3)}
