"""What the release step gives the task: the pinned release file, mteb's descriptive statistics shipped
in the package, and the BM25 baseline in mteb's model registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execretrieval_mteb.dataset.release import (
    Release, ReleaseError, dataset_revision, pinned_release, read_release, release_file, write_release,
)
from execretrieval_mteb.mteb_task.about import STATS_FILE


def test_results_on_the_release_or_its_source_carry_the_commit_anything_else_local(tmp_path: Path, monkeypatch) -> None:
    release = Release("org/data", "c" * 40, "a" * 64, "b" * 64)
    assert dataset_revision("a" * 64, release) == "c" * 40  # the release itself (e.g. from the Hub)
    assert dataset_revision("b" * 64, release) == "c" * 40  # the dataset it was staged from (e.g. bundled)
    assert dataset_revision("d" * 64, release) == "local-" + "d" * 12
    assert dataset_revision("a" * 64, Release("org/data", None, "a" * 64)) == "local-" + "a" * 12  # unpinned

    path = tmp_path / "release.json"
    monkeypatch.setenv("EXECRETRIEVAL_RELEASE", str(path))
    assert release_file() == path
    assert write_release(release) == path
    assert pinned_release() == release == read_release(path)
    path.write_text("{not json")
    with pytest.raises(ReleaseError, match="not a release file"):
        read_release(path)
    monkeypatch.delenv("EXECRETRIEVAL_RELEASE")
    assert release_file().name == "release.json" and release_file().parent.name == "dataset"


def test_the_shipped_statistics_are_mtebs_for_the_bundled_data(tiny_dataset: Path) -> None:
    """(That mteb reads them from its own tree once contributed: tests/mteb_task/test_upstream.py.)"""
    from execretrieval_mteb.mteb_task.statistics import StatisticsError, check

    stats = check()  # recomputed by mteb's calculate_descriptive_statistics on the bundled data
    assert stats["test"]["num_queries"] == 1009 and stats["test"]["num_documents"] == 5045
    assert json.loads(STATS_FILE.read_text()) == json.loads(json.dumps(stats))
    with pytest.raises(StatisticsError, match="out of date; regenerate it with `execretrieval hub stats`"):
        check(tiny_dataset)


def test_bm25_is_in_mtebs_model_registry_through_the_start_up_hook(tmp_path: Path) -> None:
    code = (
        "import sys, mteb\n"
        "meta = mteb.get_model_meta('execretrieval-mteb/bm25-code')\n"
        "model = mteb.get_model('execretrieval-mteb/bm25-code')\n"
        "print(meta.name, meta.revision, meta.framework, meta.model_type, type(model).__name__,\n"
        "      model.mteb_model_meta.revision == meta.revision,\n"
        "      [type(f).__name__ for f in sys.meta_path].count('MtebTaskRegistrar'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                            env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    from importlib.metadata import version

    assert result.stdout.split() == [
        "execretrieval-mteb/bm25-code", f"rank-bm25-{version('rank-bm25')}-k1-1.5-b-0.75", "['NumPy']", "['sparse']",
        "CodeBM25Search", "True", "0",  # the hook removed itself once both registries were extended
    ]
