"""Helpers of the Hub tests: environments and runners for the real clients in subprocesses.

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
from pathlib import Path

from fake_hub import FakeHub

BIN = Path(sys.executable).parent
EXECRETRIEVAL = str(BIN / "execretrieval")
TOKEN = "hf_fake_secret_token_4242"
OFFICIAL_SHA = "0123456789abcdef0123456789abcdef01234567"


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


def fingerprint_of(dataset: Path) -> str:
    """The data fingerprint, computed here from its definition: sha256 of the data files' manifest lines."""
    lines = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  data/{p.name}\n"
                    for p in sorted((dataset / "data").glob("*.jsonl")))
    return hashlib.sha256(lines.encode()).hexdigest()
