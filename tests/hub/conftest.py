"""Fixtures for the Hub release and the leaderboard: a fake Hub on localhost, environments for the
real huggingface_hub/datasets/mteb clients in subprocesses, a tiny dataset, and an official tiny
release with real results (BM25 and the embedded MiniLM) and analysis files.

The test process itself stays offline (``tests/conftest.py``): huggingface_hub and datasets read
``HF_ENDPOINT`` and ``HF_HUB_OFFLINE`` when imported, so every online call runs in a subprocess
with ``hub_env``: the fake Hub's endpoint, ``HF_HUB_DISABLE_XET=1`` (the classic LFS path), a
private ``HF_HOME``, a token in ``HF_TOKEN``, and offline mode switched off.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mteb_task"))

from analysis_stub import write_analysis_stub  # noqa: E402
from fake_hub import FakeHub  # noqa: E402
from tiny_dataset import build_tiny_dataset  # noqa: E402

BIN = Path(sys.executable).parent
EXECRETRIEVAL = str(BIN / "execretrieval")
TOKEN = "hf_fake_secret_token_4242"
OFFICIAL_SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def fake_hub() -> Iterator[FakeHub]:
    with FakeHub(token=TOKEN) as hub:
        yield hub


def hub_env(hub: FakeHub | None, home: Path, release: Path, **extra: str) -> dict[str, str]:
    """Environment of a subprocess talking to ``hub`` (or offline when ``hub`` is None)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_DATASETS_CACHE")}
    env.update(HF_HOME=str(home), HF_HUB_DISABLE_XET="1", HF_TOKEN=TOKEN, HF_HUB_DISABLE_PROGRESS_BARS="1",
               EXECRETRIEVAL_RELEASE=str(release), TOKENIZERS_PARALLELISM="false", HF_HUB_DISABLE_TELEMETRY="1")
    if hub is not None:
        env["HF_ENDPOINT"] = hub.endpoint
    else:
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9")
    env.update(extra)
    return env


def run(args: list[str], env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def cli(args: list[str], env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return run([EXECRETRIEVAL, *args], env, cwd, timeout)


def python(code: str, env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-c", code], env, cwd, timeout)


def unpinned(path: Path, repo_id: str) -> Path:
    path.write_text(json.dumps({"repo_id": repo_id, "revision": None, "fingerprint": None}) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_dataset(tmp_path_factory.mktemp("hub-tiny") / "dataset")


def fingerprint_of(dataset: Path) -> str:
    return hashlib.sha256((dataset / "SHA256SUMS").read_bytes()).hexdigest()


@pytest.fixture(scope="session")
def official_release(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release file making the tiny dataset the official data (as `hub pin` would after staging it)."""
    path = tmp_path_factory.mktemp("release") / "release.json"
    path.write_text(json.dumps({"repo_id": "bench/tiny", "revision": OFFICIAL_SHA, "fingerprint": "f" * 64,
                                "source_fingerprint": fingerprint_of(tiny)}) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def official_results(tiny: Path, official_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`execretrieval run` (BM25 and MiniLM) on the official tiny data, plus the analysis files."""
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
    write_analysis_stub(out)
    return out
