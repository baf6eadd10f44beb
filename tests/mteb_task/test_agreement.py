"""On the bundled dataset, mteb's ExecRetrieval (qrels and scores only) and the package's execution-aware
evaluator (every snippet of each top 10 judged by the execution cache, static proofs and the sandboxed
oracle) give the same numbers. BM25's rankings are the hard case: its ties put canonicals and their
mutants on equal scores. (The tiny dataset, with MiniLM: test_mteb_cli.py and test_upstream.py.)"""

from __future__ import annotations

from pathlib import Path

import mteb

from execretrieval_mteb import load_task
from execretrieval_mteb.evaluation.metric_names import K_VALUES, Metric
from execretrieval_mteb.results.predictions import evaluate_predictions
from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search


def test_mtebs_task_and_the_execution_aware_evaluator_agree_on_the_bundled_data(tmp_path: Path) -> None:
    loaded = load_task("bundled")
    result = mteb.evaluate(CodeBM25Search(), loaded.task, cache=None, prediction_folder=tmp_path, co2_tracker=False,
                           show_progress_bar=False)
    upstream = result.task_results[0].scores["test"][0]
    evaluation = evaluate_predictions(tmp_path / "ExecRetrieval_predictions.json", loaded.built,
                                      oracle_cache=tmp_path / "oracle.sqlite")
    ours = evaluation.report.means()
    for key in (metric.key(k) for metric in Metric for k in K_VALUES):
        assert abs(ours[key] - upstream[key]) < 1e-9, key
    assert upstream["hit_rate_at_1"] != upstream["exec_at_1"]  # mteb's id tie-break would not have done
