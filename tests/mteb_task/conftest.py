"""Fixtures: a tiny real dataset (authored tasks, oracle-verified mutants, real execution cache),
offline Hugging Face settings, and the packaged default model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tiny_dataset import build_tiny_dataset, to_original_release_layout

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_dataset(tmp_path_factory.mktemp("execretrieval") / "dataset")


@pytest.fixture(scope="session")
def release_layout_dataset(tiny_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return to_original_release_layout(tiny_dataset, tmp_path_factory.mktemp("release"))


@pytest.fixture(scope="session")
def default_model():
    from execretrieval_mteb.mteb_task.default_model import load_default_model

    return load_default_model(device="cpu")
