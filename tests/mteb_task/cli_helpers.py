"""Running the real ``execretrieval`` and ``mteb`` commands in subprocesses, offline, in a private HF cache."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

BIN = Path(sys.executable).parent
EXECRETRIEVAL = BIN / "execretrieval"
MTEB = BIN / "mteb"


def offline_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a user with no network: an empty private Hugging Face home, offline switches on."""
    env = {
        **os.environ,
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "MTEB_CACHE": str(tmp_path / "mteb-cache"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),  # the oracle's default verdict cache
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("HF_HUB_CACHE", None)
    env.update(extra)
    return env


def execretrieval(*args: str, env: Mapping[str, str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    command = [str(EXECRETRIEVAL)] if EXECRETRIEVAL.exists() else [sys.executable, "-m", "execretrieval_mteb.cli.main"]
    return subprocess.run([*command, *args], capture_output=True, text=True, env=dict(env), cwd=cwd, timeout=timeout)


def error_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    """stderr's non-empty lines."""
    return [line for line in result.stderr.splitlines() if line.strip()]


def assert_one_line_error(result: subprocess.CompletedProcess[str], *, prefix: str, contains: str = "") -> str:
    """A failed command whose stderr is exactly one line, no traceback, starting with ``prefix``."""
    lines = error_lines(result)
    assert result.returncode not in (0, 1), (result.returncode, result.stderr[-3000:])
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert len(lines) == 1, result.stderr[-3000:]
    assert lines[0].startswith(prefix), lines[0]
    assert contains in lines[0], lines[0]
    return lines[0]
