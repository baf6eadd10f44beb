"""User mistakes through the real CLI: one line naming the problem and the fix, a non-zero exit, nothing written."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, error_lines, execretrieval, offline_env

RUN_ERROR = "execretrieval run: error: "


@pytest.mark.parametrize(("folder", "files", "problem"), [
    ("emptydir", {}, "not a sentence-transformers model folder"),
    ("half-saved", {"config.json": "{}"}, "no weights in this folder"),
])
def test_a_folder_that_is_not_a_model(folder: str, files: dict[str, str], problem: str, tmp_path: Path) -> None:
    (tmp_path / folder).mkdir()
    for name, text in files.items():
        (tmp_path / folder / name).write_text(text)
    result = execretrieval("run", "-m", f"./{folder}", env=offline_env(tmp_path), cwd=tmp_path)
    assert_one_line_error(result, prefix=f"{RUN_ERROR}-m ./{folder}: {problem}")
    assert not (tmp_path / "execretrieval-results").exists()


def test_a_typo_in_a_model_folder_suggests_the_folder(tmp_path: Path) -> None:
    (tmp_path / "my-model").mkdir()
    (tmp_path / "my-model" / "modules.json").write_text("[]")
    result = execretrieval("run", "-m", "bm25", "-m", "./my-modle", env=offline_env(tmp_path), cwd=tmp_path)
    assert_one_line_error(result, prefix=RUN_ERROR + "-m ./my-modle: no such directory (did you mean my-model?)")
    assert not (tmp_path / "execretrieval-results").exists()


def test_an_output_folder_on_a_read_only_file_system(tiny_dataset: Path, tmp_path: Path) -> None:
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    run = [str(Path(sys.executable).with_name("execretrieval")), "run", "-m", "bm25", "--data", str(tiny_dataset),
           "-o", str(read_only / "results")]
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare, "-m", "true"], capture_output=True) if unshare else None
    if probe is not None and probe.returncode == 0:  # a real read-only mount, in a private mount namespace
        script = f'mount --bind "{read_only}" "{read_only}" && mount -o remount,bind,ro "{read_only}" && exec "$@"'
        command = [unshare, "-m", "sh", "-c", script, "sh", *run]
        expected = "read-only file system"
    else:  # no mount namespaces here: a folder nobody may write, even root
        command = [*run[:-1], "/proc/sys/execretrieval-results"]
        expected = "permission denied"
    result = subprocess.run(command, capture_output=True, text=True, env=offline_env(tmp_path), cwd=tmp_path, timeout=600)
    line = assert_one_line_error(result, prefix=RUN_ERROR + "-o ", contains=expected)
    assert "choose a writable folder with -o DIR" in line
    assert not (read_only / "results").exists()


def test_data_hub_offline_with_nothing_cached(tmp_path: Path) -> None:
    """With a pinned release, `--data hub` offline and an empty cache: one line, no output folder."""
    code = (
        "import sys\n"
        "from execretrieval_mteb.dataset import release\n"
        "pinned = release.Release('execretrieval/ExecRetrieval', '0' * 40, 'f' * 64)\n"
        "release.pinned_release = lambda path=None: pinned\n"
        "from execretrieval_mteb.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-c", code, "run", "-m", "bm25", "--data", "hub", "-o", str(out)],
                            capture_output=True, text=True, env=offline_env(tmp_path), cwd=tmp_path, timeout=600)
    assert_one_line_error(result, prefix=RUN_ERROR + "execretrieval/ExecRetrieval@" + "0" * 40 + " is not in the Hugging Face cache",
                          contains="offline mode is on")
    assert not out.exists()


def test_data_hub_before_any_release_is_pinned(tmp_path: Path) -> None:
    result = execretrieval("run", "-m", "bm25", "--data", "hub", "-o", str(tmp_path / "out"),
                           env=offline_env(tmp_path), cwd=tmp_path)
    assert_one_line_error(result, prefix=RUN_ERROR + "no official release")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [
    ["run"], ["evaluate", "p.json"], ["rescore", "dir"], ["build"], ["validate"], ["oracle", "run", "in.jsonl", "-o", "x"],
    ["oracle", "selfcheck"],
])
def test_workers_must_be_a_positive_integer_everywhere(command: list[str], tmp_path: Path) -> None:
    result = execretrieval(*command, "--workers", "-1", env=offline_env(tmp_path), cwd=tmp_path, timeout=120)
    prog = "execretrieval " + " ".join(command[:2] if command[0] == "oracle" else command[:1])
    assert_one_line_error(result, prefix=f"{prog}: error: argument --workers: expected a positive integer, got -1")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_option_shows_the_subcommands_usage(tmp_path: Path) -> None:
    result = execretrieval("run", "--frobnicate", env=offline_env(tmp_path), cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    lines = error_lines(result)
    assert lines[0].startswith("usage: execretrieval run ")
    assert lines[-1].startswith("execretrieval run: error: unrecognized arguments: --frobnicate")
    nested = execretrieval("oracle", "run", "x.jsonl", "-o", "y", "--frobnicate", env=offline_env(tmp_path),
                           cwd=tmp_path, timeout=120)
    assert error_lines(nested)[0].startswith("usage: execretrieval oracle run ")


def test_a_bug_is_one_line_and_its_traceback_is_behind_verbose(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from execretrieval_mteb.cli import validate_cmd\n"
        "def broken(args):\n"
        "    raise RuntimeError('boom')\n"
        "validate_cmd.run = broken\n"
        "from execretrieval_mteb.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    quiet = subprocess.run([sys.executable, "-c", code, "validate"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert quiet.returncode == 1
    assert error_lines(quiet) == ["execretrieval validate: internal error: RuntimeError: boom "
                                  "(a bug; rerun with -v for the traceback and report it)"]
    loud = subprocess.run([sys.executable, "-c", code, "validate", "-v"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert loud.returncode != 0 and "Traceback" in loud.stderr and "RuntimeError: boom" in loud.stderr
