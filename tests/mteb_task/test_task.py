"""The task's metadata, prompt, and exec@k in MTEB's own result JSON (real mteb, real models)."""

from __future__ import annotations

import json
from pathlib import Path

import mteb
import pytest
from mteb.types import PromptType

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search
from execretrieval_mteb.mteb_task.task import QUERY_PROMPT, ExecRetrieval, load_task
from execretrieval_mteb.oracle import outcomes  # not `import tests_sha256`: pytest would collect it


def test_metadata_is_complete() -> None:
    meta = ExecRetrieval.metadata
    assert (meta.type, meta.category, meta.main_score) == ("Retrieval", "t2t", "exec_at_1")
    assert meta.eval_langs == ["eng-Latn", "python-Code"]
    assert "Programming" in meta.domains and meta.task_subtypes == ["Code retrieval"]
    assert meta.license and "2609.01865" in meta.bibtex_citation
    assert meta.dataset["path"] and meta.dataset["revision"]
    assert meta.is_filled()


def test_instruction_models_get_the_task_prompt_on_queries_only(default_model) -> None:
    """mteb's instruction lookup (used by Qwen3-Embedding, E5-instruct wrappers) finds the query prompt."""
    assert default_model.get_instruction(ExecRetrieval.metadata, PromptType.query) == QUERY_PROMPT
    assert not any(default_model.model_prompts.values())  # a prefix-free model keeps encoding raw text


def _exec_at_1_from_predictions(predictions: dict, dataset_dir: Path) -> float:
    """Independent check: look each query's top-1 snippet up in the execution cache by hand."""
    built = load_dataset(dataset_dir)
    code = {c.corpus_id: c.code for c in built.corpus}
    tests = {q.query_id: q.test_suite for q in built.queries}
    hits = []
    for qid, docs in predictions["default"]["test"].items():
        best = max(docs.values())
        top = [cid for cid, s in docs.items() if s == best]
        verdicts = [built.execution_cache.get((outcomes.code_sha256(code[c]), outcomes.tests_sha256(tests[qid]))) for c in top]
        hits.append(sum(1 for o in verdicts if o and all(x.passed for x in o)) / len(top))
    return sum(hits) / len(hits)


@pytest.mark.parametrize("model_kind", ["dense", "bm25"])
def test_mteb_evaluate_reports_exec_at_k(model_kind: str, default_model, tiny_dataset: Path, tmp_path: Path) -> None:
    model = default_model if model_kind == "dense" else CodeBM25Search()
    task = load_task(tiny_dataset).task
    result = mteb.evaluate(model, task, cache=mteb.ResultCache(tmp_path / "cache"), prediction_folder=tmp_path / "pred",
                           overwrite_strategy="always", co2_tracker=False, show_progress_bar=False)
    scores = result.task_results[0].scores["test"][0]
    for metric in Metric:
        for k in K_VALUES:
            assert 0.0 <= scores[metric.key(k)] <= 1.0
    assert scores["main_score"] == scores[MAIN_SCORE]
    assert "ndcg_at_10" in scores and "recall_at_10" in scores  # mteb's standard metrics stay

    result_files = list((tmp_path / "cache").rglob("ExecRetrieval.json"))
    assert len(result_files) == 1
    on_disk = json.loads(result_files[0].read_text())["scores"]["test"][0]
    assert on_disk[MAIN_SCORE] == pytest.approx(scores[MAIN_SCORE], abs=5.01e-7)  # stored rounded to 6 decimals

    predictions = json.loads((tmp_path / "pred" / "ExecRetrieval_predictions.json").read_text())
    built = load_dataset(tiny_dataset)
    assert set(predictions["default"]["test"]) == {q.query_id for q in built.queries}
    assert scores[MAIN_SCORE] == pytest.approx(_exec_at_1_from_predictions(predictions, tiny_dataset), abs=5.01e-7)
