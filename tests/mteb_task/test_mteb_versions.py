"""The registration hook on the mteb versions the package allows, and on one it does not know.

The newest allowed mteb is the one ``setup.sh`` installs (every other test runs on it). The oldest
is installed here with ``pip install --no-deps --target`` into a folder put first on ``PYTHONPATH``,
so only mteb is swapped (about 15 s from the package index; skipped when no index is reachable).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from execretrieval_mteb.mteb_task.registration import supported_mteb

PROBE = """
import json, sys
import mteb
from execretrieval_mteb import load_task
from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search
task = mteb.get_task("ExecRetrieval")
from execretrieval_mteb.mteb_task import exec_retrieval
assert type(task).__module__ == "execretrieval_mteb.mteb_task.task"
assert type(task).task_specific_scores is exec_retrieval.ExecRetrieval.task_specific_scores
assert mteb.get_model_meta("execretrieval-mteb/bm25-code").name == "execretrieval-mteb/bm25-code"
result = mteb.evaluate(CodeBM25Search(), load_task(sys.argv[1]).task, cache=None, co2_tracker=False,
                       show_progress_bar=False)
print(json.dumps([mteb.__version__, mteb.__file__, result.task_results[0].scores["test"][0]]))
"""


def _probe(tiny: Path, tmp_path: Path, pythonpath: str) -> list:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": pythonpath}
    done = subprocess.run([sys.executable, "-c", PROBE, str(tiny)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_oldest_and_newest_allowed_mteb_register_and_score_alike(tiny_dataset: Path, tmp_path: Path) -> None:
    supported = SpecifierSet(supported_mteb())
    assert version("mteb") in supported
    oldest = next(s.version for s in supported if s.operator == ">=")
    target = tmp_path / "oldest-mteb"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                          "--target", str(target), f"mteb=={oldest}"], capture_output=True, text=True, timeout=300)
    if pip.returncode != 0:
        pytest.skip(f"mteb=={oldest} cannot be installed here (no package index?): {pip.stderr.strip()[-200:]}")
    old_version, old_file, old_scores = _probe(tiny_dataset, tmp_path, str(target))
    assert old_file.startswith(str(target)) and old_version.startswith(oldest)
    import mteb

    from execretrieval_mteb import load_task
    from execretrieval_mteb.mteb_task.bm25 import CodeBM25Search

    newest = mteb.evaluate(CodeBM25Search(), load_task(tiny_dataset).task, cache=None, co2_tracker=False,
                           show_progress_bar=False)  # this process: the newest allowed mteb
    new_scores = newest.task_results[0].scores["test"][0]
    for key in ("main_score", "exec_at_1", "exec_at_3", "execution_precision_at_5", "ndcg_tie_neutral_at_10"):
        assert old_scores[key] == new_scores[key], key


def _fake_mteb(root: Path, version_: str, registry: bool) -> Path:
    """A stand-in mteb whose ``get_tasks`` module is executed on import, as the real one's is."""
    package = root / "mteb"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import get_tasks\n__version__ = %r\n" % version_)
    (package / "get_tasks.py").write_text("_TASKS_REGISTRY = {}\nTASK_LIST = ()\n" if registry else "TASKS = ()\n")
    info = root / f"mteb-{version_}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: mteb\nVersion: {version_}\n")
    return root


@pytest.mark.parametrize(("version_", "registry", "reason"), [
    ("3.0.0", True, "mteb 3.0.0 is outside the range this package supports"),
    (None, False, "has no mteb.get_tasks._TASKS_REGISTRY"),
])
def test_an_unknown_mteb_gets_one_line_and_no_traceback(version_: str | None, registry: bool, reason: str,
                                                        tmp_path: Path) -> None:
    root = _fake_mteb(tmp_path / "fake", version_ or version("mteb"), registry)
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", "import mteb; print('imported')"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "imported"
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("execretrieval-mteb: ExecRetrieval is not registered with mteb: ")
    assert reason in done.stderr and f"pip install 'mteb{supported_mteb()}'" in done.stderr
