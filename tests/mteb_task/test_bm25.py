"""The code-aware BM25 baseline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from execretrieval_mteb.mteb_task.bm25 import B, K1, CodeBM25Search, code_tokens
from execretrieval_mteb.mteb_task.data_source import DataSource, SourceKind, load_source
from execretrieval_mteb.mteb_task.task import HUB_REPO, HUB_REVISION


def test_operators_are_tokens() -> None:
    assert "<=" in code_tokens("if n <= 0:") and "<" not in code_tokens("if n <= 0:")
    assert code_tokens("a < b") != code_tokens("a <= b")
    assert code_tokens("x + 1") != code_tokens("x - 1")
    assert code_tokens("n >>= 2") == ["n", ">>=", "2"]
    assert code_tokens("maxGap(a_list)") == ["maxgap", "max", "gap", "(", "a_list", "a", "list", ")"]


def test_parameters_are_the_studys() -> None:
    assert (K1, B) == (1.5, 0.75)


def test_scores_equal_rank_bm25(tiny_dataset: Path) -> None:
    split, _ = load_source(DataSource(SourceKind.LOCAL, tiny_dataset), HUB_REPO, HUB_REVISION)
    model = CodeBM25Search()
    model.index(split["corpus"])
    reference = BM25Okapi([code_tokens(t) for t in split["corpus"]["text"]], k1=1.5, b=0.75)
    for query in split["queries"]["text"]:
        np.testing.assert_allclose(model.scores(query), reference.get_scores(code_tokens(query)), rtol=1e-12, atol=1e-12)


def test_search_never_splits_a_tie_group_at_the_cutoff() -> None:
    corpus = [{"id": f"d{i}", "title": "", "text": text} for i, text in enumerate(
        ["def f(a, b): return a - b", "def f(a, b): return b - a", "def g(x): return x", "def h(y): return y * 2"])]
    model = CodeBM25Search()
    model.index(corpus)
    results = model.search([{"id": "q", "text": "return a - b"}], top_k=1)["q"]
    assert set(results) == {"d0", "d1"}  # swapped arguments: identical bags of tokens, tied
    assert results["d0"] == pytest.approx(results["d1"])


def test_documents_outside_the_index_score_as_if_indexed_without_changing_it() -> None:
    corpus = [{"id": f"d{i}", "title": "", "text": text} for i, text in enumerate(
        ["def f(a, b): return a - b", "def g(x): return x", "def h(y): return y * 2 + 1"])]
    model = CodeBM25Search()
    model.index(corpus)
    queries = ["return a - b", "double y plus one"]
    extra = model.score_extra(queries, [c["text"] for c in corpus] + ["def f(a, b): return unseen_name - b"])
    for i, query in enumerate(queries):
        np.testing.assert_allclose(extra[i, :3], model.scores(query), rtol=1e-12)
    assert extra[0, 3] < extra[0, 0]  # the unseen term contributes nothing, and b is not a
