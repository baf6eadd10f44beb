"""The README as a newcomer reads it: its table is generated from the reference file, its commands run as written.

Every line of every ```bash block that calls `.venv/bin/execretrieval`, `.venv/bin/mteb` or
`.venv/bin/python -m ...` runs, in order, in a fresh folder standing for a clone, offline, with an
empty Hugging Face home; every ```python block runs too. Only the data is swapped for a small
one: `--data DIR` and commands without `--data` get the tiny dataset, `load_task()` gets it through
`EXECRETRIEVAL_DATA`, and `tasks/` is the construction fixtures. (`mteb run`, which loads the pinned
Hub release, is in text blocks; test_upstream.py runs it against a local Hub server.) `./setup.sh` is replaced by the
one step of it these routes depend on (`execretrieval models install-embedded`), and the test
suite's own line is skipped.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import BIN, execretrieval, offline_env
from execretrieval_mteb.results.reference import current_table, read_reference, render_table
from execretrieval_mteb.mteb_task.embedded import HUB_REVISION, package_dir

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
REFERENCE = REPO / "docs" / "reference_results.json"
FIXTURE_TASKS = REPO / "tests" / "construction" / "fixtures" / "tasks"
TAKES_DATA = {"run", "evaluate", "rescore", "report", "validate"}


def blocks(language: str, text: str | None = None) -> list[str]:
    text = README.read_text(encoding="utf-8") if text is None else text
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)


def test_the_readme_table_is_the_reference_file() -> None:
    payload = read_reference(REFERENCE)
    assert current_table(README.read_text(encoding="utf-8")) == render_table(payload), (
        "README.md's reference table differs from docs/reference_results.json: regenerate it with "
        "`execretrieval report DIR --reference docs/reference_results.json --readme README.md`"
    )
    assert {m["model"] for m in payload["models"]} == {"sentence-transformers/all-MiniLM-L6-v2",
                                                       "execretrieval-mteb/bm25-code"}
    assert payload["dataset"]["queries"] > 0 and len(payload["dataset"]["fingerprint"]) == 64


def _command_lines() -> list[str]:
    lines = []
    for block in blocks("bash"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line:
                lines.append(line)
    return lines


def _prepare_clone(root: Path) -> None:
    """What a fresh clone's working folder needs for the README's commands, small."""
    shutil.copy(README, root / "README.md")
    (root / "docs").mkdir()
    shutil.copytree(FIXTURE_TASKS, root / "tasks")
    (root / "suites.jsonl").write_text(json.dumps({"id": "ok", "code": "def f(x):\n    return x + 1\n",
                                                   "tests": ["assert f(1) == 2"]}) + "\n")
    mine = Path(shutil.copytree(package_dir(), root / "my-finetuned-model"))  # a model of one's own: other files
    config = mine / "sentence_bert_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "max_seq_length": 128}))


def _adapt(argv: list[str], tiny: Path) -> list[str]:
    """The README's command with the small dataset where it names or implies the bundled one."""
    program = Path(argv[0]).name
    argv = [str(BIN / program) if a.startswith(".venv/bin/") else a for a in argv]
    if program != "execretrieval":
        return argv
    argv = [str(tiny) if a == "DIR" and i > 0 and argv[i - 1] == "--data" else a for i, a in enumerate(argv)]
    if argv[1] in TAKES_DATA and "--data" not in argv:
        argv += ["--data", str(tiny)]
    return argv


def test_every_readme_command_runs_as_written_offline(tiny_dataset: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    _prepare_clone(clone)
    env = offline_env(tmp_path, EXECRETRIEVAL_DATA=str(tiny_dataset))
    ran = []
    for line in _command_lines():
        if line.startswith("./setup.sh && "):
            assert "models install-embedded" in (REPO / "setup.sh").read_text()
            done = execretrieval("models", "install-embedded", env=env, cwd=clone)
            assert done.returncode == 0, done.stderr[-3000:]
            line = line.removeprefix("./setup.sh && ")
        if line == ".venv/bin/python -m pytest":
            continue  # this very suite
        if " evaluate predictions" in line and not (clone / "predictions").exists():
            _run_python_snippets(env, clone)  # the README's route to saved predictions
        argv = _adapt(shlex.split(line), tiny_dataset)
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=clone, timeout=1800)
        assert done.returncode == 0, f"README line failed: {line}\n{done.stderr[-4000:]}"
        assert "Traceback" not in done.stderr, line
        ran.append(line)
    assert sum("execretrieval run" in line for line in ran) >= 4
    assert any(" evaluate predictions" in line for line in ran)
    assert next((clone / "predictions").rglob("ExecRetrieval_predictions.json")).is_file()
    # `execretrieval run -m ./my-finetuned-model` evaluated a model of one's own
    assert (clone / "execretrieval-results" / "evaluation" / "local__my-finetuned-model.json").is_file()
    # the reference-results commands wrote the file and regenerated the table from it
    payload = read_reference(clone / "docs" / "reference_results.json")
    assert current_table((clone / "README.md").read_text()) == render_table(payload)


def _run_python_snippets(env: dict[str, str], cwd: Path) -> None:
    for index, code in enumerate(blocks("python")):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=1800)
        assert done.returncode == 0, f"README python block {index} failed:\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_readme_python_snippet_runs_offline(index: int, tiny_dataset: Path, tmp_path: Path) -> None:
    env = offline_env(tmp_path, EXECRETRIEVAL_DATA=str(tiny_dataset))
    done = execretrieval("models", "install-embedded", env=env, cwd=tmp_path)  # the step of ./setup.sh it needs
    assert done.returncode == 0, done.stderr[-3000:]
    script = tmp_path / "snippet.py"
    script.write_text(blocks("python")[index])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    assert 0.0 <= float(done.stdout.strip().splitlines()[-1]) <= 1.0
    assert "Batches" in done.stderr  # encoding progress on the Python route too
    assert (tmp_path / "mteb-cache" / "results" / "sentence-transformers__all-MiniLM-L6-v2" / HUB_REVISION).is_dir()
