"""Family-level analyses on a tiny hand-made dataset: miss attribution, deception, gap, family
accuracy (from rankings alone and from a full matrix), edit size, length bias, stacked mutants."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_helpers import tiny_dataset, tiny_report
from scipy.stats import spearmanr

from execretrieval_mteb.analysis.deception import deception
from execretrieval_mteb.analysis.edit_size import edit_size, edit_size_vs_deception, family_edit_sizes, size_bin, spearman
from execretrieval_mteb.analysis.family import Families
from execretrieval_mteb.analysis.family_accuracy import family_accuracy
from execretrieval_mteb.analysis.family_scores import ScoreSource, family_scores
from execretrieval_mteb.analysis.length_bias import LengthGroup, length_bias, length_groups
from execretrieval_mteb.analysis.miss_attribution import MissWinner, miss_attribution
from execretrieval_mteb.analysis.similarity_gap import similarity_gap
from execretrieval_mteb.analysis.config import StatsConfig
from execretrieval_mteb.analysis.stacked import StackedScores, stacked_deception, stacked_per_query
from execretrieval_mteb.evaluation.model_report import FrozenScores

CANON = "def f(x):\n    return x < 1\n"
GUARDED = "def g(s):\n    if not s:\n        return 0\n    return len(s)\n"
DATASET = tiny_dataset({
    "a": (CANON, [(CANON.replace("<", "<="), "wrong_comparison"), (CANON.replace("1", "2"), "off_by_one"),
                  (CANON.replace("x < 1", "1 < x"), "swap_arguments"), (CANON.replace("x < 1", "x - 1"), "wrong_operator")]),
    "b": (GUARDED, [("def g(s):\n    return len(s)\n", "remove_edge_case_check"),
                    (GUARDED.replace("return 0", "return 1"), "off_by_one"),
                    (GUARDED.replace("not s", "s"), "wrong_comparison"),
                    (GUARDED.replace("len(s)\n", "len(s) + 1\n"), "off_by_one")]),
    "c": ("def h(a, b):\n    return a - b\n",
          [("def h(a, b):\n    return a + b\n", "wrong_operator"), ("def h(a, b):\n    return b - a\n", "swap_arguments"),
           ("def h(a, b):\n    return a - b - 1\n", "off_by_one"), ("def h(a, b):\n    return a * b\n", "wrong_operator")]),
})
FAMILIES = Families.from_dataset(DATASET)

# Rankings (top lists only): see each test for what they imply.
RANKED = {
    "q_a": {"a_m0": 0.9, "a_c": 0.9, "a_m1": 0.7, "c_c": 0.6, "a_m2": 0.3},          # a_m3 unlisted (<= 0.3)
    "q_b": {"a_c": 0.95, "b_m0": 0.9, "b_m1": 0.5},                                 # b_c, b_m2, b_m3 unlisted (<= 0.5)
    "q_c": {"a_m1": 0.8, "c_m2": 0.8, "c_c": 0.8, "c_m0": 0.2, "b_c": 0.1},          # c_m1, c_m3 unlisted (<= 0.1)
}
REPORT = tiny_report("m", DATASET, RANKED)
CORPUS_IDS = tuple(c.corpus_id for c in DATASET.corpus)


def _full_matrix() -> FrozenScores:
    """The same rankings completed below each query's lowest listed score."""
    matrix = np.full((3, len(CORPUS_IDS)), -1.0)
    unlisted = {"q_a": {"a_m3": 0.1}, "q_b": {"b_c": 0.4, "b_m2": 0.45, "b_m3": 0.3}, "q_c": {"c_m1": 0.05, "c_m3": 0.0}}
    for i, qid in enumerate(("q_a", "q_b", "q_c")):
        for cid, score in {**RANKED[qid], **unlisted[qid]}.items():
            matrix[i, CORPUS_IDS.index(cid)] = score
    return FrozenScores(("q_a", "q_b", "q_c"), CORPUS_IDS, matrix)


def test_miss_attribution_splits_tie_groups_evenly() -> None:
    miss = miss_attribution(REPORT, FAMILIES)
    # q_a: {a_m0, a_c} tied -> 1/2 own mutant; q_b: another canonical; q_c: {a_m1, c_m2, c_c} -> 1/3 + 1/3
    assert miss.expected_misses == pytest.approx(0.5 + 1 + 2 / 3)
    total = 13 / 6
    assert miss.share(MissWinner.OWN_MUTANT) == pytest.approx((0.5 + 1 / 3) / total)
    assert miss.share(MissWinner.OTHER_CANONICAL) == pytest.approx(1 / total)
    assert miss.share(MissWinner.OTHER_TASK_SNIPPET) == pytest.approx((1 / 3) / total)
    assert miss.own_mutant_by_bug_type["wrong_comparison"] == pytest.approx(0.5)
    assert miss.own_mutant_by_bug_type["off_by_one"] == pytest.approx(1 / 3)
    assert sum(REPORT.scores.values["exec_at_1"].values()) == pytest.approx(3 - miss.expected_misses)


def test_rankings_alone_decide_what_the_bounds_allow() -> None:
    scores = family_scores(FAMILIES, REPORT, None)
    assert scores.source is ScoreSource.RANKINGS
    nan = np.nan
    expected = np.array([[1, 0, 0, 0],        # tie counts as deceived; a_m3 <= 0.3 < 0.9
                         [1, 1, nan, nan],    # canonical unlisted: listed mutants are at least it
                         [0, 0, 1, 0]])
    assert np.array_equal(scores.deceived(), expected, equal_nan=True)
    assert np.array_equal(scores.family_accuracy(), [0.5, 0.0, 0.5])
    assert np.array_equal(scores.gap(), [0.0, nan, 0.0], equal_nan=True)
    d = deception(scores.deceived(), FAMILIES)
    assert (d.overall.deceived, d.overall.decided, d.overall.undecided) == (4, 10, 2)
    wrong_comparison = d.by_bug_type["wrong_comparison"]  # a_m0 deceived (tie), b_m2 undecided
    assert (wrong_comparison.rate, wrong_comparison.decided, wrong_comparison.undecided) == (1.0, 1, 1)
    gap = similarity_gap(scores)
    assert gap.share_mutant_at_least == 1.0 and gap.decided == 3
    # strictly above: q_a only ties (a_m3 <= 0.3), q_b's listed mutants are above the unlisted canonical
    # only if above the bound 0.5 (b_m0 0.9 is), q_c ties (c_m1, c_m3 <= 0.1 < 0.8)
    assert np.array_equal(scores.above(), [[0, 0, 0, 0], [1, nan, nan, nan], [0, 0, 0, 0]], equal_nan=True)
    assert gap.share_mutant_above == pytest.approx(1 / 3) and gap.decided_above == 3
    assert family_accuracy(scores, FAMILIES).accuracy == pytest.approx(1 / 3)


def test_a_full_matrix_decides_everything_and_agrees_with_the_rankings() -> None:
    frozen = family_scores(FAMILIES, REPORT, _full_matrix())
    assert frozen.source is ScoreSource.FROZEN
    ranked = family_scores(FAMILIES, REPORT, None).deceived()
    full = frozen.deceived()
    decided = ~np.isnan(ranked)
    assert not np.isnan(full).any()
    assert np.array_equal(full[decided], ranked[decided])
    assert np.array_equal(full[1], [1, 1, 1, 0])  # b_c 0.4: b_m2 0.45 above, b_m3 0.3 below
    assert frozen.gap()[1] == pytest.approx(0.4 - 0.9)


def test_family_accuracy_shares_ties() -> None:
    report = tiny_report("t", DATASET, {"q_a": {"a_c": 1.0, "a_m0": 1.0, "a_m1": 1.0, "a_m2": 0.5, "a_m3": 0.2, "b_c": 0.1},
                                        "q_b": {"b_c": 2.0, "b_m0": 1.0, "b_m1": 1.0, "b_m2": 1.0, "b_m3": 1.0, "a_c": 0.5},
                                        "q_c": {"c_m0": 3.0, "c_c": 2.0, "c_m1": 1.0, "c_m2": 1.0, "c_m3": 1.0, "a_c": 0.5}})
    assert np.array_equal(family_scores(FAMILIES, report, None).family_accuracy(), [1 / 3, 1.0, 0.0])


def test_edit_size_counts_the_longer_side_of_each_differing_region() -> None:
    assert edit_size("return x < 1", "return x <= 1") == 1
    assert edit_size("return x < 1", "return x < 2") == 1
    assert edit_size("if not s:\n    return 0\nreturn len(s)", "return len(s)") == len("if not s:\n    return 0\n")
    assert edit_size("return a - b", "return b - a") == 2  # 'a'->'b' ... 'b'->'a' (two one-char regions)
    assert edit_size("x", "x") == 0
    assert list(size_bin(np.array([1, 2, 5, 6, 20, 21, 400]))) == [0, 1, 1, 2, 2, 3, 3]
    sizes = family_edit_sizes(FAMILIES)
    assert sizes[0, 0] == 1 and sizes[1, 0] == len("    if not s:\n        return 0\n")


def test_spearman_is_scipy_tie_aware_and_none_when_constant() -> None:
    x = np.array([1, 1, 1, 2, 5, 5, 30, 1.0])
    y = np.array([1, 0, 1, 1, 0, 0, 0, 1.0])
    assert spearman(x, y).rho == pytest.approx(spearmanr(x, y).statistic)
    assert spearman(x, np.ones(8)).rho is None
    deceived = {"m": family_scores(FAMILIES, REPORT, None).deceived()}
    sizes = family_edit_sizes(FAMILIES)
    result = edit_size_vs_deception(sizes, deceived, FAMILIES)
    assert result.spearman_absolute.n == 10 and result.spearman_relative.n == 10
    assert sum(r.decided for r in result.by_bin.values()) == 10


def test_edit_size_correlation_is_over_pairs_with_each_pairs_rate_over_the_models() -> None:
    """Two models: one value per (canonical, mutant) pair (its deception rate over the models), n = pairs."""
    one = family_scores(FAMILIES, REPORT, _full_matrix()).deceived()
    two = np.where(FAMILIES.mutant_mask, 1.0, np.nan)
    sizes = family_edit_sizes(FAMILIES)
    result = edit_size_vs_deception(sizes, {"a": one, "b": two}, FAMILIES)
    rate = (one + two) / 2
    mask = FAMILIES.mutant_mask
    assert result.spearman_absolute.n == 12
    assert result.spearman_absolute.rho == pytest.approx(spearmanr(sizes[mask], rate[mask]).statistic)
    lengths = np.array([len(DATASET.corpus[[c.corpus_id for c in DATASET.corpus].index(cid)].code)
                        for cid in FAMILIES.canonical_ids])
    relative = sizes / lengths[:, None]
    assert result.spearman_relative.rho == pytest.approx(spearmanr(relative[mask], rate[mask]).statistic)
    assert sum(r.decided for r in result.by_bin.values()) == 24  # the bins still count triples


def test_length_bias_groups_by_length_against_the_canonical() -> None:
    groups = length_groups(FAMILIES)
    assert list(groups[0]) == [1, 0, 0, 0]  # '<=' is one longer; the others keep the length
    assert list(groups[1]) == [-1, 0, -1, 1]  # removed guard, 0 -> 1, 'not ' dropped, '+ 1' added
    result = length_bias(groups, {"m": family_scores(FAMILIES, REPORT, _full_matrix()).deceived()}, FAMILIES)
    assert result.mutants == {LengthGroup.SHORTER: 2, LengthGroup.SAME: 7, LengthGroup.LONGER: 3}
    assert result.deception[LengthGroup.SHORTER].rate == 1.0  # b_m0 0.9 and b_m2 0.45 above b_c 0.4
    assert result.deception[LengthGroup.LONGER].rate == pytest.approx(2 / 3)  # a_m0, c_m2 tie; b_m3 0.3 < 0.4
    # by bug type: off_by_one is the same length in a and c (a_m1, c_m2) and longer in b (b_m3)
    off = result.deception_by_bug_type["off_by_one"]
    assert set(off) == {LengthGroup.SAME, LengthGroup.LONGER}
    assert result.mutants_by_bug_type["off_by_one"] == {LengthGroup.SHORTER: 0, LengthGroup.SAME: 2, LengthGroup.LONGER: 2}
    assert result.deception_by_bug_type["remove_edge_case_check"][LengthGroup.SHORTER].rate == 1.0


def test_stacked_deception_per_query_first_on_queries_with_every_count() -> None:
    scores = family_scores(FAMILIES, REPORT, _full_matrix())  # canonicals: a 0.9, b 0.4, c 0.8
    stacked = StackedScores(
        query_ids=("q_a", "q_b", "q_c"), corpus_ids=("s1", "s2", "s3", "s4", "s5", "s6", "s7"),
        matrix=np.array([[0.95, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0],
                         [0.0, 0.1, 0.4, 0.0, 0.0, 0.0, 0.9],
                         [0.0, 0.0, 0.0, 0.79, 0.0, 0.0, 0.0]]),
        source_entry_ids=("a", "b", "b", "c", "zzz", "a", "b"), n_edits=(2, 2, 3, 4, 2, 3, 4),
    )
    per_query = stacked_per_query(stacked, scores, FAMILIES)
    assert per_query.counts == (1, 2, 3, 4) and per_query.unmatched == 1
    # q_a: singles 1/4 (a_m0 ties), 2 edits s1 above, 3 edits s6 below, no 4; q_b: singles 3/4, s2 below, s3 ties, s7 above
    assert np.array_equal(per_query.values[:2], [[0.25, 1.0, 0.0, np.nan], [0.75, 0.0, 1.0, 1.0]], equal_nan=True)
    result = stacked_deception({"m": per_query}, StatsConfig(bootstrap_replicates=200))
    assert result.queries == 1  # only q_b has a variant at every count
    assert result.rates == {1: 0.75, 2: 0.0, 3: 1.0, 4: 1.0}
    assert result.deltas[2] == pytest.approx((-0.75, -0.75, -0.75))  # one query: the interval is a point
    pooled = stacked_deception({"m": per_query, "n": per_query}, StatsConfig(bootstrap_replicates=200))
    assert pooled.rates == result.rates and pooled.variants == 2 * result.variants == 6
    with pytest.raises(ValueError):
        StackedScores(("q_a",), ("s1",), np.zeros((1, 2)), ("a",), (2,))
