"""Verdicts: the dataset's execution cache first, the real oracle for pairs it lacks."""

from __future__ import annotations

from pathlib import Path

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.evaluation.verdicts import VerdictSource, check_pairs, passing_from_cache


def test_cache_says_exactly_the_canonicals_pass(tiny_dataset: Path) -> None:
    built = load_dataset(tiny_dataset)
    passing = passing_from_cache(built)
    assert passing == {q.query_id: frozenset(q.correct_corpus_ids) for q in built.queries}


def test_uncached_pairs_go_through_the_oracle(tiny_dataset: Path, tmp_path: Path) -> None:
    built = load_dataset(tiny_dataset)
    q0, q1 = built.queries[0], built.queries[1]
    own = (q0.query_id, q0.correct_corpus_ids[0])
    mutant = (q0.query_id, q0.paired_distractor_corpus_ids[0])
    foreign = (q0.query_id, q1.correct_corpus_ids[0])  # another task's canonical: not in the cache
    verdicts = check_pairs(built, [own, mutant, foreign, own], oracle_cache=tmp_path / "oracle.sqlite")
    assert set(verdicts) == {own, mutant, foreign}
    assert verdicts[own].source is VerdictSource.CACHE and verdicts[own].passed
    assert verdicts[mutant].source is VerdictSource.CACHE and not verdicts[mutant].passed
    assert verdicts[foreign].source is VerdictSource.ORACLE and not verdicts[foreign].passed
    assert len(verdicts[foreign].outcomes) == len(q0.test_suite)
    assert all(o.to_str().startswith("ERROR:") for o in verdicts[foreign].outcomes)  # the target is undefined there
