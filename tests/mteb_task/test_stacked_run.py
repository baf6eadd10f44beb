"""`execretrieval run --stacked`: the stacked mutants a build emits are scored (never as corpus items)
and reach the stacked-deception analysis, for a dense model and for BM25."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.construction.builder import BuildOptions, build

FIXTURE_TASKS = Path(__file__).parents[1] / "construction" / "fixtures" / "tasks"


def test_stacked_mutants_are_scored_on_request(tmp_path: Path) -> None:
    data = build(BuildOptions(tasks_dir=FIXTURE_TASKS, out_dir=tmp_path / "data")).out_dir
    stacked_rows = (data / "data" / "stacked_mutants.jsonl").read_text().splitlines()
    if not stacked_rows:
        pytest.fail("the fixture build made no stacked mutants; the fixture tasks must allow some")
    out = tmp_path / "results"
    assert main(["run", "--data", str(data), "-o", str(out), "--quiet"]) == 0
    corpus = out / "embeddings" / "sentence-transformers__all-MiniLM-L6-v2.npz"
    evaluation = out / "evaluation" / "sentence-transformers__all-MiniLM-L6-v2.json"
    before = {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in (corpus, evaluation)}
    # Asked for the stacked mutants afterwards: only they are encoded, the corpus and its evaluation are reused.
    assert main(["run", "--data", str(data), "-o", str(out), "--stacked", "--quiet"]) == 0
    assert (out / "embeddings" / "sentence-transformers__all-MiniLM-L6-v2.stacked.npz").is_file()
    assert {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in (corpus, evaluation)} == before
    stacked = json.loads((out / "analysis" / "analyses.json").read_text())["stacked_mutations"]
    for model in ("sentence-transformers/all-MiniLM-L6-v2", "execretrieval-mteb/bm25-code"):
        assert stacked["by_model"][model].get("computed", True) is not False, stacked["by_model"][model]
    ids = {json.loads(line)["corpus_id"] for line in stacked_rows}
    for report in (out / "evaluation").glob("*.json"):  # never retrieved: they are not in the corpus
        listed = {r["corpus_id"] for q in json.loads(report.read_text())["per_query"] for r in q["top_results"]}
        assert not listed & ids
    # rescoring from embeddings/ alone (the stacked matrices included) reaches the same analysis
    downloaded = tmp_path / "downloaded"
    shutil.copytree(out / "embeddings", downloaded / "embeddings")
    assert main(["rescore", str(downloaded), "--data", str(data), "--quiet"]) == 0
    assert (downloaded / "analysis" / "analyses.json").read_bytes() == (out / "analysis" / "analyses.json").read_bytes()
