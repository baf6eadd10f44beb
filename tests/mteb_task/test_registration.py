"""Registration: plain mteb sees the task after installation; start-up of other programs is untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON = sys.executable
MTEB = str(Path(sys.executable).with_name("mteb"))


def _run(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **(env or {})}
    return subprocess.run(args, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=300)


def test_plain_mteb_finds_the_task_without_importing_this_package_first(tmp_path: Path) -> None:
    code = (
        "import mteb, sys\n"
        "task = mteb.get_task('ExecRetrieval')\n"
        "from execretrieval_mteb.mteb_task import exec_retrieval\n"
        "assert type(task).__module__ == 'execretrieval_mteb.mteb_task.task'\n"
        "upstream = exec_retrieval.ExecRetrieval  # the class an mteb pull request adds: only load_data differs\n"
        "assert type(task).__mro__[1] is upstream and type(task).metadata is upstream.metadata\n"
        "assert {n for n in vars(type(task)) if not n.startswith('_')} == {'load_data', 'unload_data'}\n"
        "assert any(t.metadata.name == 'ExecRetrieval' for t in mteb.get_tasks(task_types=['Retrieval'], domains=['Programming']))\n"
        "assert not [f for f in sys.meta_path if type(f).__name__ == 'MtebTaskRegistrar']  # one-shot\n"
        "print('ok')\n"
    )
    result = _run([PYTHON, "-c", code], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_importing_the_task_first_also_registers_it(tmp_path: Path) -> None:
    code = "from execretrieval_mteb import ExecRetrieval\nimport mteb\nassert type(mteb.get_task('ExecRetrieval')) is ExecRetrieval\n"
    result = _run([PYTHON, "-c", code], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]


def test_start_up_imports_neither_mteb_nor_this_package(tmp_path: Path) -> None:
    """`python -c pass` loads exactly the modules it loads with the hook switched off."""
    code = "import sys; print(' '.join(sorted(sys.modules)))"
    with_hook = _run([PYTHON, "-c", code], cwd=tmp_path)
    without = _run([PYTHON, "-c", code], env={"EXECRETRIEVAL_MTEB_NO_REGISTER": "1"}, cwd=tmp_path)
    loaded = set(with_hook.stdout.split())
    assert loaded == set(without.stdout.split())
    assert not {m for m in loaded if m.startswith(("mteb", "execretrieval", "importlib.util", "torch", "numpy"))}
    finders = "import sys; print([type(f).__name__ for f in sys.meta_path])"
    assert _run([PYTHON, "-c", finders], cwd=tmp_path).stdout.count("MtebTaskRegistrar") == 1
    switched_off = _run([PYTHON, "-c", finders], env={"EXECRETRIEVAL_MTEB_NO_REGISTER": "1"}, cwd=tmp_path)
    assert "MtebTaskRegistrar" not in switched_off.stdout


@pytest.mark.skipif(not Path(MTEB).exists(), reason="mteb console script not installed next to this Python")
def test_mteb_available_tasks_lists_it(tmp_path: Path) -> None:
    result = _run([MTEB, "available-tasks", "--tasks", "ExecRetrieval"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ExecRetrieval" in result.stdout
