"""Fixtures for the Hub release and the leaderboard: a fake Hub on localhost (``fake_hub``), a tiny
dataset, and an official tiny release with real results (BM25 and the embedded MiniLM) and analysis
files. Subprocess environments and runners are in ``hub_helpers``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mteb_task"))

from fake_hub import FakeHub  # noqa: E402
from hub_helpers import OFFICIAL_SHA, TOKEN, fingerprint_of  # noqa: E402
from tiny_dataset import build_tiny_dataset  # noqa: E402


@pytest.fixture
def fake_hub() -> Iterator[FakeHub]:
    with FakeHub(token=TOKEN) as hub:
        yield hub


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_dataset(tmp_path_factory.mktemp("hub-tiny") / "dataset")


@pytest.fixture(scope="session")
def official_release(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release file making the tiny dataset the official data (as `hub pin` would after staging it)."""
    path = tmp_path_factory.mktemp("release") / "release.json"
    path.write_text(json.dumps({"repo_id": "bench/tiny", "revision": OFFICIAL_SHA, "fingerprint": "f" * 64,
                                "source_fingerprint": fingerprint_of(tiny)}) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def official_results(tiny: Path, official_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`execretrieval run` (BM25 and MiniLM) on the official tiny data, which also writes the analysis files."""
    from execretrieval_mteb.cli.main import main

    out = tmp_path_factory.mktemp("official-results") / "results"
    previous = os.environ.get("EXECRETRIEVAL_RELEASE")
    os.environ["EXECRETRIEVAL_RELEASE"] = str(official_release)
    try:
        assert main(["run", "--data", str(tiny), "-o", str(out), "--quiet"]) == 0
    finally:
        if previous is None:
            os.environ.pop("EXECRETRIEVAL_RELEASE", None)
        else:
            os.environ["EXECRETRIEVAL_RELEASE"] = previous
    return out
