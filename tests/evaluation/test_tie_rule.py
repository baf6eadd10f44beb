"""The neutral tie rule: every metric equals its average over all orders of each tie group."""

from __future__ import annotations

import itertools
import math

import pytest

from execretrieval_mteb.evaluation.exec_at_k import expected_exec_at_k
from execretrieval_mteb.evaluation.execution_precision import expected_execution_precision_at_k
from execretrieval_mteb.evaluation.ndcg import expected_ndcg_at_k
from execretrieval_mteb.evaluation.ranking import Ranking


def _orders(scores: dict[str, float]):
    """Every total order consistent with the scores (ties permuted), each equally likely."""
    ranking = Ranking.from_scores(scores)
    for perms in itertools.product(*(itertools.permutations(g.ids) for g in ranking.groups)):
        yield [cid for group in perms for cid in group]


def _brute(scores, passing, relevant, k):
    execs, precs, ndcgs = [], [], []
    ideal = sum(1 / math.log2(r + 1) for r in range(1, min(k, len(relevant)) + 1))
    for order in _orders(scores):
        top = order[:k]
        execs.append(float(any(c in passing for c in top)))
        precs.append(sum(c in passing for c in top) / k)
        ndcgs.append(sum(1 / math.log2(r + 2) for r, c in enumerate(top) if c in relevant) / ideal)
    return sum(execs) / len(execs), sum(precs) / len(precs), sum(ndcgs) / len(ndcgs)


# A canonical tied with three of its mutants at the top (what a word-level BM25 produces), then the
# fourth mutant, then a tie straddling rank 5 that holds another passing snippet.
TIED = {"canon": 2.0, "mut_a": 2.0, "mut_b": 2.0, "mut_c": 2.0, "mut_d": 1.5, "other_ok": 1.0, "x1": 1.0, "x2": 1.0}
PASSING = {"canon", "other_ok"}
RELEVANT = {"canon"}


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 8, 10])
def test_expectation_equals_average_over_all_tie_orders(k: int) -> None:
    ranking = Ranking.from_scores(TIED)
    exec_k, prec_k, ndcg_k = _brute(TIED, PASSING, RELEVANT, k)
    assert expected_exec_at_k(ranking, PASSING, k) == pytest.approx(exec_k)
    assert expected_execution_precision_at_k(ranking, PASSING, k) == pytest.approx(prec_k)
    assert expected_ndcg_at_k(ranking, RELEVANT, k) == pytest.approx(ndcg_k)


def test_tie_with_mutants_gives_the_canonical_no_head_start() -> None:
    ranking = Ranking.from_scores(TIED)
    assert expected_exec_at_k(ranking, PASSING, 1) == pytest.approx(0.25)
    assert expected_exec_at_k(ranking, PASSING, 3) == pytest.approx(0.75)
    assert expected_execution_precision_at_k(ranking, PASSING, 1) == pytest.approx(0.25)
    assert expected_ndcg_at_k(ranking, RELEVANT, 1) == pytest.approx(0.25)


def test_ids_and_input_order_do_not_decide_ties() -> None:
    """Renaming the canonical so it sorts first or last, or reordering the input, changes nothing."""
    values = []
    for name in ("a_first", "zz_last"):
        scores = {name if c == "canon" else c: s for c, s in TIED.items()}
        for items in (list(scores.items()), list(reversed(scores.items()))):
            ranking = Ranking.from_scores(dict(items))
            passing = {name, "other_ok"}
            values.append((expected_exec_at_k(ranking, passing, 1), expected_ndcg_at_k(ranking, {name}, 3)))
    assert len(set(values)) == 1


def test_candidates_cover_the_whole_straddling_group() -> None:
    ranking = Ranking.from_scores(TIED)
    assert set(ranking.candidates(1)) == {"canon", "mut_a", "mut_b", "mut_c"}
    assert set(ranking.candidates(6)) == set(TIED)
    assert set(ranking.candidates(5)) == {"canon", "mut_a", "mut_b", "mut_c", "mut_d"}
