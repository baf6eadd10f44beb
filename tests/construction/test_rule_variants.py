"""Stated-rule variants: parsed from task files, run by the build's gate 4 and by the task doctor."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from execretrieval_mteb.construction.builder import BuildOptions, build
from execretrieval_mteb.construction.task_doctor import main as doctor_main
from execretrieval_mteb.construction.task_files import AuthoredTask, TaskFileProblem, parse_task_file

FIXTURE = Path(__file__).parent / "fixtures" / "tasks" / "bit_manipulation" / "lowest_set_bit.toml"
RULES = """
[[validation.rules]]
rule = "return 0 when n < 1"
replace = [["if n < 1:", "if n == 0:"]]

[[validation.rules]]
rule = "the value of the lowest set bit"
code = '''
def lowest_set_bit(n):
    if n < 1:
        return 0
    return n & (n - 1)
'''
"""


NO_NEGATIVE = ("lowest_set_bit(-8) == 0", "lowest_set_bit(6) == 2")
"""The fixture's one test of a negative n, swapped for a positive one: 'n < 1' is then pinned only at 0."""


def _task(extra: str, swap: tuple[str, str] | None = None) -> str:
    text = FIXTURE.read_text(encoding="utf-8")
    return (text.replace(*swap) if swap else text) + extra


def test_rules_parse_into_variants_applied_to_the_canonical() -> None:
    task = parse_task_file(_task(RULES), "bit_manipulation/lowest_set_bit.toml")
    assert isinstance(task, AuthoredTask) and task.validation is not None
    first, second = task.validation.rules
    assert first.rule == "return 0 when n < 1" and "if n == 0:" in first.code and "n < 1" not in first.code
    assert second.code.strip().endswith("return n & (n - 1)")


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ('rule = "x"\nreplace = [["n < 7", "n"]]', "occurs 0 times in the canonical"),
        ('rule = "x"\nreplace = [["n", "m"]]', "occurs 6 times in the canonical"),
        ('rule = "x"\ncode = "def other(n):\\n    return n\\n"', "does not define lowest_set_bit()"),
        ('rule = "x"\nreplace = [["if n < 1:", "if n < 1"]]', "does not parse"),
        ('rule = "x"\nreplace = [["n & (-n)", "n&(-n)"]]', "is the canonical itself"),
        ('replace = [["n < 1", "n < 2"]]', "needs 'rule'"),
        ('rule = "x"', "needs exactly one of 'replace'"),
        ('rule = "x"\nwhy = "y"\ncode = "pass"', "unknown field 'why'"),
    ],
)
def test_a_bad_rule_is_a_problem_naming_its_line(entry: str, expected: str) -> None:
    text = _task("\n[[validation.rules]]\n" + entry + "\n")
    problem = parse_task_file(text, "bit_manipulation/lowest_set_bit.toml")
    assert isinstance(problem, TaskFileProblem)
    line = text.splitlines().index("[[validation.rules]]") + 1
    assert problem.reason.startswith(f"bit_manipulation/lowest_set_bit.toml:{line}: validation.rules item 1")
    assert expected in problem.reason


def test_the_build_excludes_a_task_whose_tests_miss_a_stated_rule(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    (tasks / "bit_manipulation").mkdir(parents=True)
    (tasks / "bit_manipulation" / "lowest_set_bit.toml").write_text(_task(RULES), encoding="utf-8")
    shutil.copy(FIXTURE.parents[1] / "validation" / "is_valid_isbn10.toml", tasks / "bit_manipulation")
    result = build(BuildOptions(tasks_dir=tasks, out_dir=tmp_path / "kept"))
    assert result.report["counts"]["queries"] == 2  # both variants fail a test: the task ships
    assert result.report["candidates"]["rule_variants"] == {"tasks_with_rules": 1, "variants": 2, "missed_by_tests": 0}

    (tasks / "bit_manipulation" / "lowest_set_bit.toml").write_text(
        _task(RULES, swap=NO_NEGATIVE), encoding="utf-8"
    )
    result = build(BuildOptions(tasks_dir=tasks, out_dir=tmp_path / "dropped"))
    (exclusion,) = [e for e in result.report["exclusions"] if e["task"] == "bit_manipulation/lowest_set_bit.toml"]
    assert exclusion["gate"] == "mutant_execution"
    assert exclusion["reasons"][0].startswith("tests miss a stated rule: 'return 0 when n < 1'")
    assert result.report["candidates"]["rule_variants"]["missed_by_tests"] == 1


def test_the_doctor_shows_an_input_that_tells_a_surviving_variant_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bit_manipulation"
    folder.mkdir()
    (folder / "lowest_set_bit.toml").write_text(_task(RULES, swap=NO_NEGATIVE))
    assert doctor_main(["--rules", str(folder / "lowest_set_bit.toml")]) == 1
    out = capsys.readouterr().out
    assert "tests miss a stated rule: 'return 0 when n < 1'" in out
    assert "lowest_set_bit(-6): canonical -> 0, variant -> 2" in out
    assert "the value of the lowest set bit" not in out  # killed by the tests


def test_the_audit_counts_rules_the_earlier_tests_missed(tmp_path: Path) -> None:
    from execretrieval_mteb.construction.rule_audit import audit, summary
    from execretrieval_mteb.construction.task_files import load_task_files

    for name, text in (("before", _task("", swap=NO_NEGATIVE)), ("now", _task(RULES))):
        (tmp_path / name / "bit_manipulation").mkdir(parents=True)
        (tmp_path / name / "bit_manipulation" / "lowest_set_bit.toml").write_text(text, encoding="utf-8")
    now, _ = load_task_files(tmp_path / "now")
    before, _ = load_task_files(tmp_path / "before")
    (found,) = audit(now, before)
    assert found.missed_before == ("return 0 when n < 1",)  # the other variant fails an old test too
    assert found.tests_changed and found.tests_added == 1 and not found.canonical_changed and not found.query_changed
    assert summary([found])["rules"] == 2 and summary([found])["rules_missed_before"] == 1
