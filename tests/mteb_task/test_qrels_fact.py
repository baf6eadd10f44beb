"""The fact mteb's ExecRetrieval rests on, on the shipped data: every query's passing snippets are its qrels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execretrieval_mteb.construction.qrels_check import QrelsMismatch, qrels_mismatches, require_passing_equals_qrels
from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.evaluation.verdicts import passing_from_cache
from execretrieval_mteb.oracle import outcomes  # not `import tests_sha256`: pytest would collect it


def _rows(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / "data" / name).read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("which", ["bundled", "tiny"])
def test_every_querys_passing_set_is_its_qrels(which: str, tiny_dataset: Path) -> None:
    root = BUNDLED_DATASET_DIR if which == "bundled" else tiny_dataset
    built = load_dataset(root)
    qrels = {q.query_id: frozenset(q.correct_corpus_ids) for q in built.queries}
    assert passing_from_cache(built) == qrels  # the evaluator's view: cache rows (own tests and the sweeps)
    assert qrels_mismatches(_rows(root, "queries.jsonl"), _rows(root, "corpus.jsonl"),
                            _rows(root, "execution_cache.jsonl")) == []  # the build's view, on the raw rows


def test_the_build_refuses_a_dataset_where_a_mutant_passes(tiny_dataset: Path) -> None:
    queries, corpus = _rows(tiny_dataset, "queries.jsonl"), _rows(tiny_dataset, "corpus.jsonl")
    cache = _rows(tiny_dataset, "execution_cache.jsonl")
    query = queries[0]
    mutant = next(c for c in corpus if c["corpus_id"] == query["paired_distractor_corpus_ids"][0])
    key = (outcomes.code_sha256(mutant["code"]), outcomes.tests_sha256(query["test_suite"]))
    doctored = [dict(row, test_results=["pass"] * len(row["test_results"]))
                if (row["code_sha256"], row["tests_sha256"]) == key else row for row in cache]
    assert doctored != cache
    with pytest.raises(QrelsMismatch, match=rf"{query['query_id']}: passing but not in qrels \['{mutant['corpus_id']}'\]"):
        require_passing_equals_qrels(queries, corpus, doctored)
