"""An authoring aid: what the build will do with a task file, and what to write to fix it.

    python -m execretrieval_mteb.construction.task_doctor tasks/geometry [tasks/x/y.toml ...] [--all]

For each task it makes the build's own checks, with the build's own code (the realism rules of
the mutation engine, ``selection.judge``, ``select_mutants``, the gate messages), in the sandbox:
the canonical's tests, the validation-only check (canonical against the reference on the
generated inputs), and every realistic single-edit candidate (its tests, then its agreement with
the canonical, then, for candidates that might be one program, with each other). It reports:

- the canonical failing a test, or disagreeing with the reference (the query, the canonical or
  the reference is wrong), and a missing or broken ``[validation]`` table;
- *live* mutants: they pass every test yet give another answer on a generated valid input. The
  tests miss that bug and the build excludes the task; the report prints the input and both
  answers, ready to become a test;
- the four mutants the build would pick (with an empty bug-type tally; the build balances types
  over the whole corpus, so the types may differ, not the rules), on how many lines, and every
  gate problem with them (fewer than four, all failing the same tests);
- notes: how many candidates each realism rule removed; the candidates by verdict (usable,
  equivalent, raises_only, crash_only, agrees_on_inputs, ...) and the usable ones' lines; pairs
  found to be one program;
- stated-rule variants (``[[validation.rules]]``, see ``rule_variants``) that pass every test: a
  rule the query states and no test pins, with an input where the variant and the canonical
  differ when the generator has one (none: the generator does not cover the rule either);
- the query: code fragments it quotes (and mutants whose edit breaks a quoted fragment),
  implementation prescriptions, and exceptions the tests require that it never mentions.

The doctor compares every usable candidate (the build only those its selection needs: the same
choice, less work). Inputs and answers are printed by running the task's own generator, canonical
and mutant in a plain ``python3 -I -S`` subprocess with a timeout: the author's own code, for the
author's eyes. Exit status 0 when every task is clean, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from ..oracle.api import run_suites
from ..oracle.outcomes import Suite
from .builder import BUILD_LIMITS, NO_VALIDATION
from .gates import check_canonical, check_live, check_mutants, check_reference, check_schema
from .mutation import Enumeration, Mutant, RealismRule, enumerate_candidates
from .mutation.realism import squash
from .selection import Rejection, SamePrograms, Verdict, edit_lines, select_mutants
from .rule_variants import RuleVariant, missed_rule, surviving, variant_suites
from .task_files import AuthoredTask, parse_task_file
from ..oracle.agreement import (
    INPUTS_SEED,
    Agreement,
    ValidationSetupError,
    mutant_suite,
    raises_tests,
    read_agreement,
    read_mutant_agreement,
    reference_suite,
)

CODE_IN_QUERY = re.compile(
    r"`[^`]+`|<=|>=|==|!=|\*\*|//|<<|>>|\b[a-z_]\w{0,3}\s*[<>]\s*-?\w+|"
    r"\b(?!(?:or|and|to|is|at|be|by|of|in|as|utf|base)\b)(?-i:[a-z_][a-z0-9_]{0,3})\s*[-+*/%]\s*\d+\b|\b[a-z_]\w*\[\w|"
    r"\b[a-z_]\w*\(\w[\w, ]*\)",
    re.IGNORECASE,
)
"""Likely code in a query: operators, comparisons and arithmetic on short lower-case names (``n - 1``, not
``ISBN-10``), indexing, calls."""
PRESCRIPTION = re.compile(
    r"\b(using|via|by the|trick|counter|stack|heap|heapq|deque|bisect|two[- ]pointers?|sliding window|"
    r"dynamic programming|memo\w*|recursi\w*|loop(?:s|ing|ed)?|iterat\w*|sieve|sort(?:ed|ing)? (?:it |them )?first|"
    r"then sort|list comprehension|dictionary|hash ?map|bitmask|xor trick|monotonic)\b",
    re.IGNORECASE,
)


USABLE = "usable"


@dataclass
class TaskReport:
    task: AuthoredTask
    enumeration: Enumeration
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    picks: list[Verdict] = field(default_factory=list)
    reference: Agreement | None = None
    rule_survivors: list[RuleVariant] = field(default_factory=list)

    def of(self, status: Rejection | None) -> list[Verdict]:
        """Candidates with that verdict (None: usable, agreement run)."""
        if status is None:
            return [v for v in self.verdicts if v.verified]
        return [v for v in self.verdicts if v.rejection is status]


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


def _quoted_and_broken(fragment: str, canonical: str, mutants: Sequence[Mutant]) -> bool:
    """The quoted fragment stands in the canonical and some mutant's edit removes it."""
    quoted = squash(fragment.strip("`"))
    return quoted in squash(canonical) and any(quoted not in squash(m.code) for m in mutants)


def diagnose(
    tasks: Sequence[AuthoredTask], workers: int | None = None, progress: bool = False, rules_only: bool = False
) -> list[TaskReport]:
    """Every check of every task in batched oracle calls (tests; agreements; same-program pairs).

    ``rules_only`` checks the canonical, its reference and the stated-rule variants, no candidates:
    the quick loop while writing rules and tests."""
    reports = [TaskReport(t, Enumeration((), ()) if rules_only else enumerate_candidates(t.canonical)) for t in tasks]
    _run_tests(reports, workers, progress)
    _run_rule_agreements(reports, workers, progress)
    if rules_only:
        return reports
    _run_agreements(reports, workers, progress)
    same = _run_pairs(reports, workers, progress)
    for report in reports:
        _conclude(report, same[report.task.path])
    return reports


def _run(suites: Sequence[Suite], workers: int | None, progress: bool) -> list:
    return run_suites(suites, workers=workers, progress=progress, limits=BUILD_LIMITS) if suites else []


def _run_tests(reports: Sequence[TaskReport], workers: int | None, progress: bool) -> None:
    """Call 1: each canonical on its tests and against its reference, every candidate on its tests."""
    suites: list[Suite] = []
    for r in reports:
        t = r.task
        suites.append(Suite(t.canonical, t.tests))
        if t.validation:
            suites.append(reference_suite(t.canonical, t.function_name, t.validation.reference, t.validation.inputs))
        suites += [Suite(m.code, t.tests) for m in r.enumeration.mutants]
        suites += variant_suites(t.rules, t.tests)
    results = iter(_run(suites, workers, progress))
    for r in reports:
        t = r.task
        r.problems += check_canonical(next(results), t.tests)
        r.problems += check_schema(t.query, t.tests, None)
        if t.validation is None:
            r.problems.append(NO_VALIDATION)
        else:
            try:
                r.reference = read_agreement(next(results))
            except ValidationSetupError as exc:
                r.problems.append(str(exc))
            else:
                for reason in check_reference(r.reference):
                    r.problems.append(f"{reason}: {_show(t, None, r.reference.disagree or r.reference.timeouts)}")
        raises = raises_tests(t.tests)
        r.verdicts = [Verdict(m, next(results), raises) for m in r.enumeration.mutants]
        rules = t.rules
        r.rule_survivors = surviving(rules, [next(results) for _ in rules])
        if not rules:
            r.problems.append("no [[validation.rules]]: add one plausible wrong variant per rule the query states")


def _run_rule_agreements(reports: Sequence[TaskReport], workers: int | None, progress: bool) -> None:
    """Surviving rule variants against the canonical on the generated inputs, to show a test to add."""
    jobs = [(r, v) for r in reports if _comparable(r) for v in r.rule_survivors]
    suites = [mutant_suite(v.code, r.task.function_name, r.task.canonical, r.task.validation.inputs) for r, v in jobs]
    for (r, variant), result in zip(jobs, _run(suites, workers, progress)):
        agreement = read_mutant_agreement(result)
        shown = (
            _show(r.task, (variant.code, "variant"), agreement.disagree)
            if agreement.disagree
            else "it agrees with the canonical on every generated input: add the rule's case to inputs(rng) too"
        )
        r.problems.append(f"{missed_rule(variant)}: {shown}")
    for r in reports:
        if not _comparable(r):
            r.problems += [f"{missed_rule(v)}: (no generator to show an input)" for v in r.rule_survivors]

def _comparable(report: TaskReport) -> bool:
    """The task's generator works, so its candidates can be compared with the canonical."""
    return report.reference is not None


def _run_agreements(reports: Sequence[TaskReport], workers: int | None, progress: bool) -> None:
    """Call 2: every candidate that survives the tests or is usable on them, against the canonical."""
    jobs = [
        (r, i)
        for r in reports
        if _comparable(r)
        for i, v in enumerate(r.verdicts)
        if v.rejection in (None, Rejection.SURVIVOR)
    ]
    suites = [
        mutant_suite(r.verdicts[i].mutant.code, r.task.function_name, r.task.canonical, r.task.validation.inputs)
        for r, i in jobs
        if r.task.validation
    ]
    for (r, i), result in zip(jobs, _run(suites, workers, progress)):
        r.verdicts[i] = r.verdicts[i].with_agreement(read_mutant_agreement(result))


def _run_pairs(reports: Sequence[TaskReport], workers: int | None, progress: bool) -> dict[str, SamePrograms]:
    """Call 3: usable candidates that might be one program (same outcomes, same disagreements), against each other."""
    same = {r.task.path: SamePrograms() for r in reports}
    jobs = [
        (r, a, b)
        for r in reports
        if r.task.validation
        for a, b in combinations(r.of(None), 2)
        if SamePrograms.may_be_same(a, b)
    ]
    suites = [
        mutant_suite(a.mutant.code, r.task.function_name, b.mutant.code, r.task.validation.inputs)
        for r, a, b in jobs
        if r.task.validation
    ]
    for (r, a, b), result in zip(jobs, _run(suites, workers, progress)):
        same[r.task.path].record(a, b, read_mutant_agreement(result))
    return same


def _conclude(report: TaskReport, same: SamePrograms) -> None:
    """Problems and notes of one task from its verdicts, as the build would see them."""
    t = report.task
    for reason, live in zip(check_live(report.verdicts), report.of(Rejection.LIVE)):
        shown = _show(t, (live.mutant.code, "mutant"), live.agreement.disagree if live.agreement else ())
        report.problems.append(f"{reason}: {shown}")
    optimistic = not _comparable(report)  # without inputs, show what the tests alone allow
    report.picks = select_mutants(report.verdicts, {}, 0, t.function_name, same=same, optimistic=optimistic)
    picked_lines = frozenset().union(*(edit_lines(v.mutant) for v in report.picks))
    reasons = check_schema(t.query, t.tests, len(report.picks)) or check_mutants(
        [v.result for v in report.picks], raises_tests(t.tests), [v.agreement for v in report.picks]
    )
    report.problems += reasons
    removed = report.enumeration.removed_by_rule()
    if removed:
        report.notes.append(
            "realism rules removed "
            + ", ".join(f"{sum(removed[rule].values())} {rule.value}" for rule in RealismRule if rule in removed)
        )
    verdicts = Counter(
        USABLE if v.verified else (v.rejection.value if v.rejection else "unverified") for v in report.verdicts
    )
    usable = report.of(None)
    report.notes.append(
        f"{len(report.verdicts)} candidates: "
        + ", ".join(f"{n} {k}" for k, n in sorted(verdicts.items()))
        + f"; usable ones on {len({v.mutant.line for v in usable})} lines"
    )
    picks = "; ".join(f"{v.mutant.bug_type.value} `{v.mutant.bug_description}`" for v in report.picks)
    report.notes.append(f"the build would pick {len(report.picks)} on {len(picked_lines)} lines: {picks}")
    for status in (Rejection.EQUIVALENT, Rejection.RAISES_ONLY, Rejection.AGREES_ON_INPUTS, Rejection.SURVIVOR):
        found = report.of(status)
        if found:
            shown = "; ".join(v.mutant.bug_description for v in found[:6])
            report.notes.append(f"{len(found)} {status.value}: {shown}")
    if same.same:
        report.notes.append(f"{len(same.same)} pair(s) of usable candidates are one program (never picked together)")
    report.problems += lint_query(t, [v.mutant for v in usable])


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


def _show(task: AuthoredTask, other_code: tuple[str, str] | None, indices: Sequence[int]) -> str:
    """``f(args)``: canonical -> X, other -> Y, for the first disagreeing input (best effort).

    ``other_code`` is (code defining the target, its label: mutant, variant), or None for the reference."""
    if not indices or task.validation is None:
        return "(no input to show)"
    if other_code is None:
        label, other = "reference", (task.validation.reference, "reference")
    else:
        code, label = other_code
        other = (code, task.function_name)
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
    return f"{task.function_name}({shown['args']}): canonical -> {shown['canonical']}, {label} -> {shown['other']}"


def _load(paths: Sequence[str]) -> tuple[list[AuthoredTask], int]:
    """Task files named directly, every file of a domain folder, or every task below a tasks folder."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files += sorted(path.glob("*.toml")) + sorted(path.glob("*/*.toml"))
        else:
            files.append(path)
    tasks: list[AuthoredTask] = []
    unreadable = 0
    for path in files:
        parsed = parse_task_file(path.read_text(encoding="utf-8"), f"{path.parent.name}/{path.name}")
        if isinstance(parsed, AuthoredTask):
            tasks.append(parsed)
        else:
            unreadable += 1
            print(parsed.reason, file=sys.stderr)
    return tasks, unreadable


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="task_doctor", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="task files or folders (a domain folder or tasks/)")
    parser.add_argument("--all", action="store_true", help="also list clean tasks and every note")
    parser.add_argument(
        "--rules", action="store_true", help="quick: the canonical, its reference and the rule variants only"
    )
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    tasks, unreadable = _load(args.paths)
    reports = diagnose(tasks, workers=args.workers, progress=sys.stderr.isatty(), rules_only=args.rules)
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
    print(f"{len(reports)} tasks, {dirty} with problems, {unreadable} not readable as tasks", file=sys.stderr)
    return 1 if dirty or unreadable else 0


if __name__ == "__main__":
    sys.exit(main())
