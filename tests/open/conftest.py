"""Fixtures of the open-pool tests: a small real wild corpus (standard-library functions of the
sandbox's Python, never the full one) and offline Hugging Face settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mteb_task"))  # tiny_dataset

SMALL_POOL = 300


@pytest.fixture(scope="session")
def small_wild(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few hundred wild functions of the standard library (about 10 s to build)."""
    from execretrieval_mteb.construction.wild.build import build_wild
    from execretrieval_mteb.dataset.bundled import BUNDLED_DATASET_DIR
    from execretrieval_mteb.dataset.io import load_dataset

    out = tmp_path_factory.mktemp("wild") / "corpus"
    benchmark = load_dataset(BUNDLED_DATASET_DIR)
    build_wild(out, benchmark_codes=[c.code for c in benchmark.corpus], packages=["python-stdlib"],
               max_functions=SMALL_POOL)
    return out


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_dataset import build_tiny_dataset

    return build_tiny_dataset(tmp_path_factory.mktemp("execretrieval") / "dataset")
