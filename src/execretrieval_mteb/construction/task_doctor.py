"""An authoring aid: what is wrong with a task file, and what to write to fix it.

    python -m execretrieval_mteb.construction.task_doctor tasks/geometry [tasks/x/y.toml ...] [--all]

For each task it runs, in the sandbox, the canonical's tests, the validation-only check
(canonical against the reference on the generated inputs) and every single-edit mutant the
engine can make (its tests, then its agreement with the canonical), and reports:

- the canonical failing a test, or disagreeing with the reference (the query, the canonical or
  the reference is wrong);
- *live* mutants: they pass every test yet give another answer on a generated valid input. The
  tests miss that bug; the report prints the input and both answers, ready to become a test;
- equivalent mutants (pass everything, agree everywhere): fine, recorded by the build;
- mutants caught only by ``pytest.raises`` tests (wrong only on invalid input);
- how many *usable* mutants remain (fail a value test with a wrong answer, disagree on a
  generated input, no timeout), by bug type and on how many distinct lines;
- the query: code fragments it quotes (and mutants whose edit breaks a quoted fragment),
  implementation prescriptions, and exceptions the tests require that it never mentions.

Inputs and answers are printed by running the task's own generator, canonical and mutant in a
plain ``python3 -I -S`` subprocess with a timeout: the author's own code, for the author's eyes.
Exit status 0 when every task is clean, 1 otherwise.
"""

from __future__ import annotations

import argparse
import enum
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..oracle.api import run_suites
from ..oracle.outcomes import OutcomeKind, Suite, SuiteResult
from .builder import BUILD_LIMITS
from .mutation import Mutant, enumerate_mutants
from .task_files import AuthoredTask, parse_task_file
from .validation_check import (
    INPUTS_SEED,
    ValidationSetupError,
    is_raises_test,
    mutant_suite,
    read_agreement,
    reference_suite,
    value_tests,
)

CODE_IN_QUERY = re.compile(
    r"`[^`]+`|<=|>=|==|!=|\*\*|//|<<|>>|\b[a-z_]\w{0,3}\s*[<>]\s*-?\w+|"
    r"\b(?!(?:or|and|to|is|at|be|by|of|in|as|utf|base)\b)[a-z_]\w{0,3}\s*[-+*/%]\s*\d+\b|\b[a-z_]\w*\[\w|"
    r"\b[a-z_]\w*\(\w[\w, ]*\)",
    re.IGNORECASE,
)
"""Likely code in a query: operators, comparisons and arithmetic on short names, indexing, calls."""
PRESCRIPTION = re.compile(
    r"\b(using|via|by the|trick|counter|stack|heap|heapq|deque|bisect|two[- ]pointers?|sliding window|"
    r"dynamic programming|memo\w*|recursi\w*|loop\w*|iterat\w*|sieve|sort(?:ed|ing)? (?:it |them )?first|"
    r"then sort|list comprehension|dictionary|hash ?map|bitmask|xor trick|monotonic)\b",
    re.IGNORECASE,
)


class MutantStatus(enum.Enum):
    USABLE = "usable"  # fails a value test with a wrong answer and disagrees on a generated input
    LIVE = "live"  # passes every test but disagrees on a generated input: the tests miss it
    EQUIVALENT = "equivalent"  # passes every test and agrees on every generated input
    UNCHECKED_SURVIVOR = "unchecked_survivor"  # passes every test; no validation inputs to decide
    RAISES_ONLY = "raises_only"  # caught only by pytest.raises tests (wrong only on invalid input)
    AGREES_ON_INPUTS = "agrees_on_inputs"  # fails a value test but agrees on every generated input
    CRASH_ONLY = "crash_only"  # fails only by raising
    TIMEOUT = "timeout"  # some test or input timed out


@dataclass
class MutantReport:
    mutant: Mutant
    status: MutantStatus
    disagree: tuple[int, ...] = ()


@dataclass
class TaskReport:
    task: AuthoredTask
    problems: list[str] = field(default_factory=list)
    mutants: list[MutantReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def of(self, status: MutantStatus) -> list[MutantReport]:
        return [m for m in self.mutants if m.status is status]


def _classify(task: AuthoredTask, result: SuiteResult, agreement: tuple[int, ...] | None, timed_out: bool) -> MutantStatus:
    if result.infra_error is not None or timed_out or any(o.kind is OutcomeKind.TIMEOUT for o in result.outcomes):
        return MutantStatus.TIMEOUT
    if result.passed:
        if agreement is None:
            return MutantStatus.UNCHECKED_SURVIVOR
        return MutantStatus.LIVE if agreement else MutantStatus.EQUIVALENT
    wrong_values = [i for i in value_tests(task.tests) if result.outcomes[i].is_wrong_output]
    if not wrong_values:
        wrong_raises = [i for i, t in enumerate(task.tests) if is_raises_test(t) and result.outcomes[i].is_wrong_output]
        return MutantStatus.RAISES_ONLY if wrong_raises else MutantStatus.CRASH_ONLY
    if agreement is not None and not agreement:
        return MutantStatus.AGREES_ON_INPUTS
    return MutantStatus.USABLE


def lint_query(task: AuthoredTask, mutants: Sequence[Mutant] = ()) -> list[str]:
    """Query problems: quoted code, prescriptions, exceptions the tests need but the query omits."""
    problems = []
    query = task.query
    code = sorted({m.group(0) for m in CODE_IN_QUERY.finditer(query)})
    if code:
        problems.append(f"query quotes code: {', '.join(repr(c) for c in code)}; describe behaviour in words")
    words = sorted({m.group(0).lower() for m in PRESCRIPTION.finditer(query)})
    if words:
        problems.append(f"query may prescribe an implementation: {', '.join(words)}; say what is returned, not how")
    broken = sorted({c for c in code if _quoted_and_broken(c, task.canonical, mutants)})
    if broken:
        problems.append(f"mutants edit code the query quotes: {', '.join(repr(b) for b in broken)}")
    for test in task.tests:
        found = re.match(r"\s*with pytest\.raises\(\s*([\w.]+)", test)
        if found:
            name = found.group(1).split(".")[-1]
            if name.lower() not in query.lower() and "raise" not in query.lower():
                problems.append(f"a test requires {name} but the query never says it is raised (name the exception)")
    return problems


def _squash(text: str) -> str:
    return "".join(text.split())


def _quoted_and_broken(fragment: str, canonical: str, mutants: Sequence[Mutant]) -> bool:
    """The quoted fragment stands in the canonical and some mutant's edit removes it."""
    quoted = _squash(fragment.strip("`"))
    return quoted in _squash(canonical) and any(quoted not in _squash(m.code) for m in mutants)


def diagnose(tasks: Sequence[AuthoredTask], workers: int | None = None, progress: bool = False) -> list[TaskReport]:
    """Run every check of every task in three batched oracle calls."""
    reports = [TaskReport(t) for t in tasks]
    mutants = {t.path: enumerate_mutants(t.canonical) for t in tasks}
    suites: list[Suite] = []
    for t in tasks:
        suites.append(Suite(t.canonical, t.tests))
        if t.validation:
            suites.append(reference_suite(t.canonical, t.function_name, t.validation.reference, t.validation.inputs))
        suites += [Suite(m.code, t.tests) for m in mutants[t.path]]
        if t.validation:
            suites += [mutant_suite(m.code, t.function_name, t.canonical, t.validation.inputs) for m in mutants[t.path]]
    results = iter(run_suites(suites, workers=workers, progress=progress, limits=BUILD_LIMITS))
    for report in reports:
        t = report.task
        canonical = next(results)
        if not canonical.passed:
            failing = [f"#{i} {o.to_str()}" for i, o in enumerate(canonical.outcomes) if not o.passed]
            report.problems.append(f"canonical fails tests {', '.join(failing) or canonical.infra_error}")
        agreement: dict[str, tuple[int, ...] | None] = {}
        timed_out: set[str] = set()
        test_results = {}
        valid = t.validation is not None
        if not valid:
            report.problems.append("no [validation] table (reference + inputs)")
        else:
            try:
                reference = read_agreement(next(results))
                if reference.disagree or reference.timeouts:
                    shown = _show(t, None, reference.disagree or reference.timeouts)
                    report.problems.append(
                        f"canonical and reference disagree on inputs {list(reference.disagree)}"
                        f"{' (timeouts ' + str(list(reference.timeouts)) + ')' if reference.timeouts else ''}: {shown}"
                    )
            except ValidationSetupError as exc:
                report.problems.append(str(exc))
                valid = False
        for m in mutants[t.path]:
            test_results[m.code] = next(results)
        if t.validation:
            for m in mutants[t.path]:
                result = next(results)
                if not valid:
                    agreement[m.code] = None
                    continue
                try:
                    verdict = read_agreement(result)
                except ValidationSetupError:
                    agreement[m.code] = None
                    continue
                agreement[m.code] = verdict.disagree
                if verdict.timeouts:
                    timed_out.add(m.code)
        for m in mutants[t.path]:
            status = _classify(t, test_results[m.code], agreement.get(m.code), m.code in timed_out)
            report.mutants.append(MutantReport(m, status, agreement.get(m.code) or ()))
        for live in report.of(MutantStatus.LIVE):
            report.problems.append(
                f"live mutant ({live.mutant.bug_type.value}) {live.mutant.bug_description}; "
                f"kill it with a test: {_show(t, live.mutant, live.disagree)}"
            )
        usable = report.of(MutantStatus.USABLE)
        lines = {m.mutant.line for m in usable}
        types = Counter(m.mutant.bug_type.value for m in usable)
        report.notes.append(
            f"{len(usable)} usable mutants on {len(lines)} lines ({', '.join(f'{k} {v}' for k, v in sorted(types.items()))})"
        )
        if len(usable) < 4 or len(lines) < 2:
            report.problems.append("fewer than 4 usable mutants on at least 2 lines; strengthen the value tests")
        for status in (MutantStatus.EQUIVALENT, MutantStatus.RAISES_ONLY, MutantStatus.UNCHECKED_SURVIVOR):
            found = report.of(status)
            if found:
                report.notes.append(f"{len(found)} {status.value}: " + "; ".join(m.mutant.bug_description for m in found[:6]))
        report.problems += lint_query(t, [m.mutant for m in usable])
    return reports


_SHOW = r'''
import json, random, sys
spec = json.loads(sys.stdin.read())
def load(src, name):
    ns = {}
    exec(src, ns)
    return ns[name]
def call(f, args):
    try:
        return repr(f(*args))
    except Exception as exc:
        return "raises " + type(exc).__name__
gen = load(spec["inputs"], "inputs")
args = tuple(gen(random.Random(spec["seed"]))[spec["index"]])
out = {"args": ", ".join(repr(a) for a in args)}
out["canonical"] = call(load(spec["canonical"], spec["target"]), args)
other, name = spec["other"]
out["other"] = call(load(other, name), args)
print(json.dumps(out))
'''


def _show(task: AuthoredTask, mutant: Mutant | None, indices: Sequence[int]) -> str:
    """``f(args)``: canonical -> X, mutant/reference -> Y, for the first disagreeing input (best effort)."""
    if not indices or task.validation is None:
        return "(no input to show)"
    other = (mutant.code, task.function_name) if mutant else (task.validation.reference, "reference")
    spec = {
        "inputs": task.validation.inputs, "seed": INPUTS_SEED, "index": indices[0], "canonical": task.canonical,
        "target": task.function_name, "other": other,
    }
    try:
        done = subprocess.run(
            ["/usr/bin/python3", "-I", "-S", "-c", _SHOW], input=json.dumps(spec), capture_output=True, text=True,
            timeout=10,
        )
        shown = json.loads(done.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError, OSError):
        return f"input #{indices[0]} (could not be shown)"
    label = "mutant" if mutant else "reference"
    return f"{task.function_name}({shown['args']}): canonical -> {shown['canonical']}, {label} -> {shown['other']}"


def _load(paths: Sequence[str]) -> list[AuthoredTask]:
    """Task files named directly, every file of a domain folder, or every task below a tasks folder."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files += sorted(path.glob("*.toml")) + sorted(path.glob("*/*.toml"))
        else:
            files.append(path)
    tasks: list[AuthoredTask] = []
    for path in files:
        parsed = parse_task_file(path.read_text(encoding="utf-8"), f"{path.parent.name}/{path.name}")
        if isinstance(parsed, AuthoredTask):
            tasks.append(parsed)
        else:
            print(parsed.reason, file=sys.stderr)
    return tasks


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="task_doctor", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="task files or folders (a domain folder or tasks/)")
    parser.add_argument("--all", action="store_true", help="also list clean tasks and every note")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    tasks = _load(args.paths)
    reports = diagnose(tasks, workers=args.workers, progress=sys.stderr.isatty())
    dirty = 0
    for report in reports:
        if not report.problems and not args.all:
            continue
        dirty += bool(report.problems)
        print(f"{report.task.path}: {'OK' if not report.problems else f'{len(report.problems)} problem(s)'}")
        for problem in report.problems:
            print(f"  - {problem}")
        for note in report.notes:
            print(f"    {note}")
    print(f"{len(reports)} tasks, {dirty} with problems", file=sys.stderr)
    return 1 if dirty else 0


if __name__ == "__main__":
    sys.exit(main())
