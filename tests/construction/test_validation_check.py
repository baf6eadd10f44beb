"""The validation-only check (agreement suites in the sandbox) and the task doctor built on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from execretrieval_mteb.construction.task_doctor import diagnose, main
from execretrieval_mteb.construction.task_files import parse_task_file
from execretrieval_mteb.oracle.agreement import (
    ValidationSetupError,
    mutant_suite,
    read_agreement,
    read_mutant_agreement,
    reference_suite,
)
from execretrieval_mteb.oracle.api import run_suites
from execretrieval_mteb.oracle.outcomes import SuiteResult

CANONICAL = "def halve(xs):\n    out = [x // 2 for x in xs]\n    xs.clear()\n    return out\n"
REFERENCE = "def reference(xs):\n    out = [x >> 1 for x in xs]\n    del xs[:]\n    return out\n"
INPUTS = "def inputs(rng):\n    return [([rng.randint(-50, 50) for _ in range(k)],) for k in range(13)]\n"


def test_agreement_counts_the_inputs_and_names_the_disagreeing_ones() -> None:
    keeps_input = "def halve(xs):\n    return [x // 2 for x in xs]\n"  # same answer, but leaves xs unchanged
    odd = "def halve(xs):\n    out = [x // 2 for x in xs]\n    xs.clear()\n    return out if len(out) != 5 else []\n"
    results = run_suites(
        [
            reference_suite(CANONICAL, "halve", REFERENCE, INPUTS),
            mutant_suite(keeps_input, "halve", CANONICAL, INPUTS),
            mutant_suite(odd, "halve", CANONICAL, INPUTS),
        ]
    )
    reference, keeps, five = (read_agreement(r) for r in results)
    assert reference.inputs == 13 and reference.agrees
    assert keeps.disagree == tuple(range(1, 13))  # the arguments after the call are compared too
    assert five.disagree == (5,) and not five.agrees


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ("def inputs(rng):\n    return [(1,)] * 3\n", "returned too few or too many inputs"),
        ("def inputs(rng):\n    raise RuntimeError('bug')\n", "failed (ERROR:RuntimeError)"),
    ],
)
def test_a_broken_generator_is_a_setup_error(inputs: str, message: str) -> None:
    result = run_suites([reference_suite(CANONICAL, "halve", REFERENCE, inputs)])[0]
    with pytest.raises(ValidationSetupError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_agreement(result)
    assert read_mutant_agreement(result).error is not None
    assert read_mutant_agreement(SuiteResult((), infra_error="worker died")).error is not None



def test_an_input_near_its_cpu_limit_counts_as_timed_out() -> None:
    """A mutant that needs 85 % of the build's CPU budget on one input agrees there today, but could
    time out on a slower or busier machine: the agreement must not depend on that."""
    from execretrieval_mteb.construction.builder import BUILD_LIMITS

    slow = (
        "import time\n"
        "def halve(xs):\n"
        "    if len(xs) == 3:\n"
        "        start = time.process_time()\n"
        f"        while time.process_time() - start < {0.85 * BUILD_LIMITS.test_cpu_s}:\n"
        "            pass\n"
        "    out = [x // 2 for x in xs]\n"
        "    xs.clear()\n"
        "    return out\n"
    )
    result = run_suites([mutant_suite(slow, "halve", CANONICAL, INPUTS)], limits=BUILD_LIMITS)[0]
    assert 4 in result.near_limit and result.outcomes[4].passed  # slot 3 is test 4; it agreed in time
    agreement = read_agreement(result)
    assert agreement.timeouts == (3,) and agreement.disagree == () and not agreement.agrees

LIVE_TASK = '''query = "Return n when it is below 100, otherwise 0."
canonical = \'\'\'
def below_hundred(n):
    if n >= 100:
        return 0
    return n
\'\'\'
tests = [
  "assert below_hundred(5) == 5",
  "assert below_hundred(0) == 0",
  "assert below_hundred(99) == 99",
  "assert below_hundred(150) == 0",
  "assert below_hundred(1000) == 0",
  "assert below_hundred(-3) == -3",
  "assert below_hundred(42) == 42",
]

[validation]
reference = \'\'\'
def reference(n):
    return n if n < 100 else 0
\'\'\'
inputs = \'\'\'
def inputs(rng):
    return [(rng.randint(-200, 200),) for _ in range(16)] + [(99,), (100,), (101,)]
\'\'\'
'''


def test_the_doctor_shows_an_input_that_kills_each_live_mutant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (report,) = diagnose([parse_task_file(LIVE_TASK, "math_numerical/below_hundred.toml")])
    live = [p for p in report.problems if p.startswith("tests miss a bug")]
    assert len(live) == 2  # n > 100 and n >= 101: nothing tests 100
    assert all("add a test: below_hundred(100): canonical -> 0, mutant -> 100" in p for p in live)
    assert any(n.startswith("the build would pick") for n in report.notes)
    path = tmp_path / "math_numerical" / "below_hundred.toml"
    path.parent.mkdir()
    path.write_text(LIVE_TASK)
    assert main([str(path)]) == 1
    assert "math_numerical/below_hundred.toml: " in capsys.readouterr().out


def test_the_doctor_reports_a_task_without_validation(tmp_path: Path) -> None:
    text = LIVE_TASK.split("\n[validation]")[0]
    (report,) = diagnose([parse_task_file(text, "math_numerical/below_hundred.toml")])
    assert any(p.startswith("no [validation] table") for p in report.problems)
