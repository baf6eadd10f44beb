"""Reading task files: good files load; bad ones are named with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from execretrieval_mteb.cli.main import main
from execretrieval_mteb.construction.task_files import (
    AuthoredTask,
    TaskFileError,
    TaskFileProblem,
    load_task_files,
    parse_task_file,
)

GOOD = """query = "Return n doubled."
canonical = \'\'\'
def double(n):
    return n * 2
\'\'\'
tests = [
  "assert double(1) == 2",
]
"""


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_loads_with_its_domain_and_name() -> None:
    task = parse_task_file(GOOD, "math_numerical/double.toml")
    assert isinstance(task, AuthoredTask)
    assert (task.domain, task.function_name, task.path) == ("math_numerical", "double", "math_numerical/double.toml")
    assert task.canonical == "def double(n):\n    return n * 2\n"
    assert task.tests == ("assert double(1) == 2",)


def test_invalid_toml_names_file_and_line(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "geometry/broken.toml",
        "query = \"x\"\ncanonical = '''\ndef broken():\n    pass\n'''\ntests = [\n  \"assert broken() is None\"\n  \"assert 1\"\n]\n",
    )
    with pytest.raises(TaskFileError, match=r"^geometry/broken\.toml:8: invalid TOML"):
        load_task_files(tmp_path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace('query = "Return n doubled."\n', ""), "math_numerical/double.toml:1: missing field 'query'"),
        (
            GOOD.replace("tests = [", "tests = 3\nx = [").replace('  "assert double(1) == 2",\n]', "1]"),
            "math_numerical/double.toml:7: unknown field 'x'",
        ),
        (
            GOOD.replace('"assert double(1) == 2",', "7,"),
            "math_numerical/double.toml:6: field 'tests' item 1 must be a non-empty string",
        ),
        (
            GOOD.replace('query = "Return n doubled."', 'query = ""'),
            "math_numerical/double.toml:1: field 'query' must be a non-empty string",
        ),
    ],
)
def test_field_errors_are_problems_with_a_line(text: str, expected: str) -> None:
    problem = parse_task_file(text, "math_numerical/double.toml")
    assert isinstance(problem, TaskFileProblem)
    assert problem.reason.startswith(expected)


def test_a_file_outside_the_domain_folders_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "cooking/double.toml", GOOD)
    with pytest.raises(TaskFileError, match=r"^cooking/double\.toml:1: task files live in <domain>/"):
        load_task_files(tmp_path)


def test_missing_tasks_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="tasks folder not found"):
        load_task_files(tmp_path / "nope")


def test_cli_reports_bad_toml_as_one_line_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "tasks", "validation/bad.toml", "query = 'unterminated\n")
    code = main(["build", "--tasks", str(tmp_path / "tasks"), "-o", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("execretrieval build: error: validation/bad.toml:1: invalid TOML")
    assert not (tmp_path / "out").exists()


def test_cli_refuses_to_overwrite_a_folder_that_is_not_a_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "tasks", "math_numerical/double.toml", GOOD)
    _write(tmp_path, "precious/notes.txt", "keep me")
    code = main(["build", "--tasks", str(tmp_path / "tasks"), "-o", str(tmp_path / "precious"), "--quiet"])
    assert code == 2
    assert "is not an earlier build" in capsys.readouterr().err
    assert (tmp_path / "precious" / "notes.txt").read_text() == "keep me"
