"""Verdicts: the dataset's execution cache, the static proof, the local cache, then the real oracle."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.schema import CorpusRecord, Label
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import Suite
from execretrieval_mteb.evaluation.verdicts import VerdictSource, check_pairs, passing_from_cache


def test_cache_says_exactly_the_canonicals_pass(tiny_dataset: Path) -> None:
    built = load_dataset(tiny_dataset)
    passing = passing_from_cache(built)
    assert passing == {q.query_id: frozenset(q.correct_corpus_ids) for q in built.queries}


def test_pairs_are_decided_by_cache_static_proof_local_cache_then_oracle(tiny_dataset: Path, tmp_path: Path) -> None:
    built = load_dataset(tiny_dataset)
    q0, q1 = built.queries[0], built.queries[1]
    target = q0.function_name
    mentions = CorpusRecord(  # names the target (in a comment), so no static proof: it must run
        corpus_id="c_mentions", code=f"# {target} lives elsewhere\ndef helper(x):\n    return x\n",
        label=Label.INCORRECT, source_entry_id=q1.entry_id,
    )
    data = replace(built, corpus=(*built.corpus, mentions))
    own = (q0.query_id, q0.correct_corpus_ids[0])
    mutant = (q0.query_id, q0.paired_distractor_corpus_ids[0])
    foreign = (q0.query_id, q1.correct_corpus_ids[0])  # another task's canonical: not in the cache
    named = (q0.query_id, "c_mentions")
    cache = tmp_path / "oracle.sqlite"
    verdicts = check_pairs(data, [own, mutant, foreign, named, own], oracle_cache=cache).verdicts
    assert set(verdicts) == {own, mutant, foreign, named}
    assert verdicts[own].source is VerdictSource.DATASET_CACHE and verdicts[own].passed
    assert verdicts[mutant].source is VerdictSource.DATASET_CACHE and not verdicts[mutant].passed
    assert verdicts[foreign].source is VerdictSource.STATIC_UNBOUND and not verdicts[foreign].passed
    assert verdicts[named].source is VerdictSource.ORACLE and not verdicts[named].passed
    assert [o.to_str() for o in verdicts[named].outcomes] == ["ERROR:NameError"] * len(q0.test_suite)
    again = check_pairs(data, [named], oracle_cache=cache).verdicts
    assert again[named].source is VerdictSource.LOCAL_CACHE and again[named].outcomes == verdicts[named].outcomes


def test_the_static_proof_agrees_with_execution(tiny_dataset: Path) -> None:
    """Every pair the proof decides fails when actually run (each query against every other task's snippets)."""
    built = load_dataset(tiny_dataset)
    pairs = [(q.query_id, c.corpus_id) for q in built.queries for c in built.corpus if c.source_entry_id != q.entry_id]
    static = [p for p, v in check_pairs(built, pairs).verdicts.items() if v.source is VerdictSource.STATIC_UNBOUND]
    assert len(static) == len(pairs)
    code = {c.corpus_id: c.code for c in built.corpus}
    tests = {q.query_id: q.test_suite for q in built.queries}
    results = run_suites([Suite(code[c], tests[q]) for q, c in static])
    assert not any(r.passed for r in results)


def test_a_pair_the_oracle_cannot_judge_fails_is_reported_and_never_cached(tiny_dataset: Path, tmp_path: Path) -> None:
    """A snippet that sabotages the harness (it posts a set-up error on the child's progress board)
    makes the fork server answer with an infrastructure error: a real NOT_JUDGED verdict."""
    from execretrieval_mteb.evaluation.model_report import ModelIdentity
    from execretrieval_mteb.evaluation.pipeline import evaluate_rankings
    from execretrieval_mteb.evaluation.ranking import Ranking
    from execretrieval_mteb.results.report import not_judged, report_json
    from execretrieval_mteb.oracle.cache import ExecutionCache

    built = load_dataset(tiny_dataset)
    q0, q1 = built.queries[0], built.queries[1]
    sabotage = CorpusRecord(
        corpus_id="c_sabotage", label=Label.INCORRECT, source_entry_id=q1.entry_id,
        code='import sys\nsys._getframe(1).f_locals["board"].fail_setup("harness sabotaged")\n',
    )
    data = replace(built, corpus=(*built.corpus, sabotage))
    pair = (q0.query_id, "c_sabotage")
    cache = tmp_path / "oracle.sqlite"
    verdict = check_pairs(data, [pair], oracle_cache=cache).verdicts[pair]
    assert verdict.source is VerdictSource.NOT_JUDGED and not verdict.passed and verdict.outcomes == ()
    with ExecutionCache(cache) as stored:
        assert len(stored) == 0
    again = check_pairs(data, [pair], oracle_cache=cache).verdicts[pair]
    assert again.source is VerdictSource.NOT_JUDGED  # asked again, not answered from the local cache

    canonical = q0.correct_corpus_ids[0]
    rankings = {q.query_id: Ranking.from_scores({}) for q in data.queries}
    rankings[q0.query_id] = Ranking.from_scores({"c_sabotage": 0.9, canonical: 0.5})
    evaluation = evaluate_rankings(data, ModelIdentity(name="test/model", revision="r"), rankings, oracle_cache=cache)
    assert evaluation.report.scores.values["exec_at_1"][q0.query_id] == 0.0
    assert evaluation.report.scores.values["exec_at_3"][q0.query_id] == 1.0
    blob = report_json(evaluation, data)
    assert not_judged(blob) == 1
    top = blob["per_query"][0]["top_results"]
    assert top[0]["corpus_id"] == "c_sabotage" and top[0]["verdict_source"] == "not_judged"
    assert top[0]["passes_all_tests"] is False and top[0]["test_results"] is None
