"""`execretrieval run` through the real CLI: a failing model between good ones, reruns, Ctrl-C and resuming."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

from cli_helpers import EXECRETRIEVAL, error_lines, execretrieval, offline_env
from execretrieval_mteb.mteb_task.embedded import HUB_REVISION, MODEL_NAME, package_dir

MINILM = "sentence-transformers__all-MiniLM-L6-v2"
BM25 = "execretrieval-mteb__bm25-code"


def _corrupt_copy(tmp_path: Path) -> Path:
    """A local sentence-transformers folder whose weights file is cut short: it resolves, then cannot load."""
    folder = Path(shutil.copytree(package_dir(), tmp_path / "corrupt-model"))
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:4096])
    return folder


def test_a_corrupt_model_between_two_good_ones_fails_alone_and_a_rerun_reuses_both(tiny_dataset: Path, tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    out = tmp_path / "out"
    corrupt = _corrupt_copy(tmp_path)
    result = execretrieval("run", "-m", "bm25", "-m", str(corrupt), "-m", "all-MiniLM-L6-v2",
                           "--data", str(tiny_dataset), "-o", str(out), env=env, cwd=tmp_path)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert "\r" not in result.stderr and "\x1b" not in result.stderr  # progress as plain lines in a log
    board = (out / "leaderboard.md").read_text()
    assert MODEL_NAME in board and "execretrieval-mteb/bm25-code" in board and "corrupt-model" not in board
    assert sorted(p.stem for p in (out / "evaluation").glob("*.json")) == [BM25, MINILM]
    failures = [line for line in error_lines(result) if line.startswith("execretrieval run: error:")]
    assert len(failures) == 1 and str(corrupt) in failures[0], result.stderr[-3000:]
    assert MODEL_NAME in result.stdout  # the leaderboard is printed
    report = json.loads((out / "evaluation" / f"{MINILM}.json").read_text())
    assert report["revision"] == HUB_REVISION  # the embedded files, verified, filed as the Hub revision
    snapshot = tmp_path / "hf-home" / "hub" / f"models--{MODEL_NAME.replace('/', '--')}" / "snapshots" / HUB_REVISION
    assert (snapshot / "model.safetensors").is_file()  # laid out lazily by the first run

    before = {p.name: p.stat().st_mtime_ns for p in (out / "evaluation").glob("*.json")}
    again = execretrieval("run", "-m", "bm25", "-m", str(package_dir()), "--data", str(tiny_dataset), "-o", str(out),
                          env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stderr.count("already evaluated on this dataset") == 2  # the package's folder is the embedded model
    assert {p.name: p.stat().st_mtime_ns for p in (out / "evaluation").glob("*.json")} == before

    from execretrieval_mteb.cli.run_cmd import _reusable
    from execretrieval_mteb.results.results_folder import ResultsFolder
    from execretrieval_mteb.mteb_task.models import resolve

    spec = resolve("all-MiniLM-L6-v2")
    folder = ResultsFolder(out)
    fingerprint = report["dataset"]["fingerprint"]
    assert _reusable(folder, MINILM, spec, fingerprint)
    assert not _reusable(folder, MINILM, spec.__class__(**{**spec.__dict__, "prompts": {"query": "query: "}}), fingerprint)
    assert not _reusable(folder, MINILM, spec.__class__(**{**spec.__dict__, "revision": "other"}), fingerprint)
    assert not _reusable(folder, MINILM, spec, "another-dataset")


def test_an_interrupted_multi_model_run_resumes_where_it_stopped(tiny_dataset: Path, tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    out = tmp_path / "out"
    args = ["run", "-m", "bm25", "-m", "all-MiniLM-L6-v2", "--data", str(tiny_dataset), "-o", str(out)]
    command = [str(EXECRETRIEVAL)] if EXECRETRIEVAL.exists() else None
    assert command is not None, "the execretrieval console script is not installed"
    victim = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=tmp_path)
    first = out / "evaluation" / f"{BM25}.json"
    deadline = time.monotonic() + 900
    while not first.exists() and victim.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.exists() and victim.poll() is None, "bm25 should have finished while MiniLM is still to come"
    victim.send_signal(signal.SIGINT)
    _, err = victim.communicate(timeout=300)
    assert victim.returncode == 130, err[-3000:]
    assert "execretrieval run: interrupted" in err and "Traceback" not in err
    assert not (out / "evaluation" / f"{MINILM}.json").exists()

    resumed = execretrieval(*args, env=env, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert resumed.stderr.count("already evaluated on this dataset") == 1  # bm25 kept, MiniLM encoded
    assert (out / "evaluation" / f"{MINILM}.json").is_file()
    assert MODEL_NAME in (out / "leaderboard.md").read_text()
