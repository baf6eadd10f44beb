"""The per-query quantities of the closed-vs-open comparison, under the neutral tie rule."""

from __future__ import annotations

import pytest

from execretrieval_mteb.evaluation.open_per_query import (
    MissCause, attribution_shares, miss_masses, wild_deceived, wild_share_at_k,
)
from execretrieval_mteb.evaluation.ranking import Ranking


def test_wild_share_counts_a_straddling_tie_group_by_expectation() -> None:
    ranking = Ranking.from_scores({"w_a": 0.9, "c_1": 0.8, "w_b": 0.7, "c_2": 0.7, "w_c": 0.7, "c_3": 0.1})
    assert wild_share_at_k(ranking, {"w_a", "w_b", "w_c"}, 1) == 1.0
    # top 3: w_a, c_1, then one of the three tied at 0.7 (two of them wild)
    assert wild_share_at_k(ranking, {"w_a", "w_b", "w_c"}, 3) == pytest.approx((1 + 0 + 2 / 3) / 3)


def test_rank1_misses_by_cause_sum_to_the_expected_miss() -> None:
    ranking = Ranking.from_scores({"w_a": 0.9, "c_mut": 0.9, "c_other": 0.9, "c_can": 0.9, "c_far": 0.1})
    mass = miss_masses(ranking, passing={"c_can"}, own_family={"c_can", "c_mut"}, canonical="c_can", wild={"w_a"})
    assert mass == {MissCause.OWN_MUTANT: 0.25, MissCause.OTHER_TASK_SNIPPET: 0.25, MissCause.WILD_FUNCTION: 0.25,
                    MissCause.OWN_CANONICAL: 0.0}
    shares = attribution_shares({"q": mass})
    assert shares["wild_function"] == pytest.approx(1 / 3)


def test_wild_deception_needs_an_incorrect_wild_function_at_or_above_the_canonical() -> None:
    ranking = Ranking.from_scores({"w_bad": 0.8, "c_can": 0.8, "w_good": 0.9})
    assert wild_deceived(ranking, {"c_can", "w_good"}, {"w_bad", "w_good"}, "c_can", 10) == 1.0  # a tie counts
    ranking = Ranking.from_scores({"c_can": 0.9, "w_bad": 0.8})
    assert wild_deceived(ranking, {"c_can"}, {"w_bad"}, "c_can", 10) == 0.0
    ranking = Ranking.from_scores({"w_bad": 0.8, "c_x": 0.7})  # canonical not retrieved: below every wild one
    assert wild_deceived(ranking, set(), {"w_bad"}, "c_can", 10) == 1.0
