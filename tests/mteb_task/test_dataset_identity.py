"""Results are filed under the exact data they were computed on (issue: a subset run and a full run
once shared one dataset revision, and mteb then skipped the full run as "already in cache").

mteb's default overwrite strategy ("only-missing") keeps an existing result file whose splits are
complete even when the dataset revision differs (documented mteb behaviour); the stale file then
keeps its own revision, so it is never mistaken for results on the new data. ``execretrieval run``
decides reuse by dataset fingerprint itself and asks mteb to overwrite.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mteb

from execretrieval_mteb.dataset.manifest import render_sums
from execretrieval_mteb.mteb_task.task import load_task


def _subset(dataset: Path, out: Path, n_queries: int) -> Path:
    copy = shutil.copytree(dataset, out)
    for rel in ("data/queries.jsonl", "queries/test.jsonl"):
        path = copy / rel
        path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:n_queries]), encoding="utf-8")
    (copy / "SHA256SUMS").write_text(render_sums(copy), encoding="utf-8")
    return copy


def test_subset_and_full_runs_never_share_a_revision(tiny_dataset: Path, tmp_path: Path, default_model) -> None:
    subset = _subset(tiny_dataset, tmp_path / "subset", 2)
    cache = mteb.ResultCache(tmp_path / "results")
    revisions = []
    for data in (subset, tiny_dataset, subset):
        loaded = load_task(data)
        result = mteb.evaluate(
            default_model, loaded.task, cache=cache, co2_tracker=False, overwrite_strategy="always"
        ).task_results[0]
        revisions.append(result.dataset_revision)
        assert result.dataset_revision == loaded.task.metadata.revision == f"local-{loaded.fingerprint[:12]}"
        (saved,) = (tmp_path / "results" / "results").rglob("ExecRetrieval.json")
        blob = json.loads(saved.read_text())
        assert blob["dataset_revision"] == result.dataset_revision  # the full run was not skipped as cached
    assert revisions[0] != revisions[1] and revisions[0] == revisions[2]
