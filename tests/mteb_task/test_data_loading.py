"""Data sources: our layout, the original release's layout, the Hub configs, and bad data."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from execretrieval_mteb.dataset.io import DatasetError, load_dataset
from execretrieval_mteb.dataset.manifest import ManifestError, render_sums
from execretrieval_mteb.mteb_task.data_source import (
    DataSource, SourceKind, load_source, resolve_source, split_from_built, split_from_hub,
)
from execretrieval_mteb.mteb_task.task import HUB_REPO, HUB_REVISION, ExecRetrieval, load_task


def _ids(split) -> tuple[list[str], list[str], dict]:
    return list(split["queries"]["id"]), list(split["corpus"]["id"]), split["relevant_docs"]


def test_mteb_ids_are_the_dataset_ids(tiny_dataset: Path) -> None:
    split, built = load_source(DataSource(SourceKind.LOCAL, tiny_dataset), HUB_REPO, HUB_REVISION)
    qids, cids, qrels = _ids(split)
    assert qids == [q.query_id for q in built.queries]
    assert cids == [c.corpus_id for c in built.corpus]
    assert qrels == {q.query_id: {cid: 1 for cid in q.correct_corpus_ids} for q in built.queries}
    assert list(split["corpus"]["text"]) == [c.code for c in built.corpus]


def test_original_release_layout_loads_with_the_same_ids(tiny_dataset: Path, release_layout_dataset: Path) -> None:
    assert not (release_layout_dataset / "data").exists()
    ours, _ = load_source(DataSource(SourceKind.LOCAL, tiny_dataset), HUB_REPO, HUB_REVISION)
    theirs, built = load_source(DataSource(SourceKind.LOCAL, release_layout_dataset), HUB_REPO, HUB_REVISION)
    assert _ids(theirs) == _ids(ours)
    assert all(q.domain for q in built.queries)  # read from the release's metadata


def test_hub_configs_load_through_mtebs_standard_loader(tiny_dataset: Path) -> None:
    """The configs corpus/queries/default, read by mteb's RetrievalDatasetLoader (here from a local copy)."""
    built = load_dataset(tiny_dataset)
    hub = split_from_hub(str(tiny_dataset), "main", built)
    ours = split_from_built(built)
    assert sorted(hub["queries"]["id"]) == sorted(ours["queries"]["id"])
    assert sorted(hub["corpus"]["id"]) == sorted(ours["corpus"]["id"])
    assert hub["relevant_docs"] == ours["relevant_docs"]


def test_source_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("EXECRETRIEVAL_DATA", raising=False)
    assert resolve_source(None).kind is SourceKind.BUNDLED
    assert resolve_source("hub").kind is SourceKind.HUB
    monkeypatch.setenv("EXECRETRIEVAL_DATA", str(tmp_path))
    assert resolve_source(None) == DataSource(SourceKind.LOCAL, tmp_path)
    assert resolve_source("bundled").kind is SourceKind.BUNDLED


def test_missing_bundled_dataset_says_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="bundled dataset is missing.*EXECRETRIEVAL_DATA"):
        load_source(DataSource(SourceKind.BUNDLED, tmp_path / "absent"), HUB_REPO, HUB_REVISION)


def test_missing_data_file_is_a_clear_error(tiny_dataset: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_dataset, tmp_path / "copy")
    (copy / "data" / "corpus.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"corpus\.jsonl: file missing"):
        load_task(copy)


def test_a_changed_byte_is_refused_naming_the_file(tiny_dataset: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_dataset, tmp_path / "copy")
    corpus = copy / "data" / "corpus.jsonl"
    corpus.write_bytes(corpus.read_bytes().replace(b"return", b"retur ", 1))
    with pytest.raises(ManifestError, match=r"data/corpus\.jsonl: does not match its SHA256SUMS digest") as caught:
        load_task(copy)
    assert "\n" not in str(caught.value)


def test_revision_names_the_data_exactly(tiny_dataset: Path, tmp_path: Path) -> None:
    first = load_task(tiny_dataset)
    assert first.revision == "local-" + first.fingerprint[:12]
    data_lines = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  data/{p.name}\n"
                         for p in sorted((tiny_dataset / "data").glob("*.jsonl")))
    assert first.fingerprint == hashlib.sha256(data_lines.encode()).hexdigest()  # the data files' manifest lines
    subset = shutil.copytree(tiny_dataset, tmp_path / "subset")
    queries = subset / "data" / "queries.jsonl"
    queries.write_text("".join(queries.read_text(encoding="utf-8").splitlines(keepends=True)[:2]), encoding="utf-8")
    (subset / "SHA256SUMS").write_text(render_sums(subset), encoding="utf-8")
    second = load_task(subset)
    assert second.revision.startswith("local-") and second.revision != first.revision
    assert ExecRetrieval.metadata.revision == HUB_REVISION  # the class keeps the pinned release


def test_corrupt_data_file_names_file_and_line(tiny_dataset: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_dataset, tmp_path / "copy")
    (copy / "SHA256SUMS").unlink()  # a hand-made dataset: nothing to verify, so the parser speaks
    cache = copy / "data" / "execution_cache.jsonl"
    lines = cache.read_text(encoding="utf-8").splitlines(keepends=True)
    cache.write_text("".join(lines[:2]) + '{"code_sha256": "ab", "tests_sha256"\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"execution_cache\.jsonl:3: not valid JSON"):
        load_task(copy)


def test_dangling_correct_id_is_rejected(tiny_dataset: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_dataset, tmp_path / "copy")
    (copy / "SHA256SUMS").unlink()
    corpus = copy / "data" / "corpus.jsonl"
    kept = [line for line in corpus.read_text(encoding="utf-8").splitlines(keepends=True) if '"label":"correct"' not in line]
    corpus.write_text("".join(kept), encoding="utf-8")
    with pytest.raises(DatasetError, match="absent from corpus.jsonl"):
        load_task(copy)
