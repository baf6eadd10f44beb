"""ExecRetrievalOpen through real mteb and through the CLI, on a tiny dataset and a small wild pool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mteb
import pytest

from execretrieval_mteb.dataset.io import load_dataset
from execretrieval_mteb.dataset.wild import load_wild, open_pool
from execretrieval_mteb.evaluation.metric_names import K_VALUES, MAIN_SCORE, Metric
from execretrieval_mteb.results.open_results import evaluate_open_predictions
from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search
from execretrieval_mteb.mteb_task.open_task import ExecRetrievalOpen

CLI = [sys.executable, "-m", "execretrieval_mteb.cli.main"]


def test_registered_beside_the_closed_task() -> None:
    assert mteb.get_task("ExecRetrievalOpen").__class__ is ExecRetrievalOpen
    assert mteb.get_task("ExecRetrieval").metadata.name == "ExecRetrieval"
    meta = ExecRetrievalOpen.metadata
    assert (meta.type, meta.main_score) == ("Retrieval", MAIN_SCORE) and meta.is_filled()


def test_mteb_evaluate_judges_wild_code_by_execution(tiny_dataset: Path, small_wild: Path, tmp_path: Path) -> None:
    task = ExecRetrievalOpen(data=tiny_dataset, wild=small_wild, oracle_cache=tmp_path / "oracle.sqlite")
    result = mteb.evaluate(CodeBM25Search(), task, cache=mteb.ResultCache(tmp_path / "cache"),
                           prediction_folder=tmp_path / "pred", overwrite_strategy="always", co2_tracker=False,
                           show_progress_bar=False)
    scores = result.task_results[0].scores["test"][0]
    for metric in Metric:
        for k in K_VALUES:
            assert 0.0 <= scores[metric.key(k)] <= 1.0
    built = load_dataset(tiny_dataset)
    wild = load_wild(small_wild)
    assert task.metadata.revision.startswith("local-")
    fresh = ExecRetrievalOpen(data=tiny_dataset, wild=small_wild)
    assert fresh.metadata.revision == task.metadata.revision  # known before loading, once the corpus is built
    fresh.load_data()
    assert len(fresh.dataset["default"]["test"]["corpus"]) == len(built.corpus) + len(wild.records)
    pred_file = tmp_path / "pred" / "ExecRetrievalOpen_predictions.json"
    ranked = json.loads(pred_file.read_text())["default"]["test"]
    assert any(cid.startswith("w_") for docs in ranked.values() for cid in docs)  # wild code competes
    # the evaluator, on mteb's saved predictions, gives mteb's numbers (same judge, other route)
    pool = open_pool(built, wild)
    evaluation = evaluate_open_predictions(pred_file, pool, oracle_cache=tmp_path / "oracle.sqlite")
    for k in K_VALUES:
        assert evaluation.report.means()[Metric.EXEC.key(k)] == pytest.approx(scores[Metric.EXEC.key(k)], abs=5.01e-7)
    assert evaluation.wild and all(not v.error for v in evaluation.wild.values())  # every wild pair ran


def test_run_open_writes_the_comparison(tiny_dataset: Path, small_wild: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    done = subprocess.run([*CLI, "run", "-m", "bm25", "--open", "--data", str(tiny_dataset), "--wild", str(small_wild),
                           "-o", str(out), "--quiet", "--workers", "2"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert (out / "evaluation" / "execretrieval-mteb__bm25-code.json").is_file()  # the closed task ran as usual
    blob = json.loads((out / "open" / "evaluation" / "execretrieval-mteb__bm25-code.json").read_text())
    assert blob["dataset"]["wild_functions"] == 300 and sum(blob["wild_pairs"].values()) > 0
    assert {row["origin"] for q in blob["per_query"] for row in q["top_results"]} == {"benchmark", "wild"}
    comparison = json.loads((out / "open" / "comparison.json").read_text())["models"]["execretrieval-mteb/bm25-code"]
    exec1 = comparison["exec"]["at_1"]
    assert exec1["open"]["mean"] == pytest.approx(blob["metrics"]["exec_at_1"])
    assert set(comparison["miss_attribution"]["open"]) >= {"own_mutant", "other_task_snippet", "wild_function"}
    report = (out / "open" / "report.md").read_text()
    assert "| exec@k closed | exec@k open |" in report and "wild function" in report
    assert (out / "open" / "figures" / "closed_vs_open.png").stat().st_size > 1000
    # evaluate --open on the same predictions rewrites the same evaluation file
    first = (out / "open" / "evaluation" / "execretrieval-mteb__bm25-code.json").read_bytes()
    again = subprocess.run([*CLI, "evaluate", "--open", str(out / "open" / "predictions" / "execretrieval-mteb__bm25-code"),
                            "--data", str(tiny_dataset), "--wild", str(small_wild), "-o", str(out), "--quiet"],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert (out / "open" / "evaluation" / "execretrieval-mteb__bm25-code.json").read_bytes() == first


def test_the_default_run_stays_closed() -> None:
    from execretrieval_mteb.cli.main import build_parser

    parser, _ = build_parser(["run"])
    assert parser.parse_args(["run"]).open is False


def test_mteb_cli_runs_the_open_task(tiny_dataset: Path, small_wild: Path, tmp_path: Path) -> None:
    """`mteb run -t ExecRetrievalOpen`, the data chosen by environment as for any mteb run."""
    mteb_bin = Path(sys.executable).with_name("mteb")
    env = {**os.environ, "EXECRETRIEVAL_DATA": str(tiny_dataset), "EXECRETRIEVAL_WILD": str(small_wild),
           "XDG_CACHE_HOME": str(tmp_path / "xdg"), "MTEB_CACHE": str(tmp_path / "mteb-cache")}
    done = subprocess.run([str(mteb_bin), "run", "-t", "ExecRetrievalOpen", "-m", "execretrieval-mteb/bm25-code",
                           "--output-folder", str(tmp_path / "results"), "--no-co2-tracker"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    (result,) = (tmp_path / "results").rglob("ExecRetrievalOpen.json")
    scores = json.loads(result.read_text())["scores"]["test"][0]
    assert scores["main_score"] == scores[MAIN_SCORE] and "exec_at_10" in scores
    assert (tmp_path / "xdg" / "execretrieval-mteb" / "oracle-open.sqlite").is_file()  # wild pairs ran in the sandbox
