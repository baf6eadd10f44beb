"""Enumerate every single-edit mutant of a canonical, each checked to be exactly the edit it claims.

Each operator module proposes candidates (a span, replacement text and the same edit on the
tree). The engine splices the text, parses the result and keeps the candidate only when its
tree equals the edited tree (structurally: parentheses do not matter, precedence does), so a
splice that changed how anything else parses is dropped, never shipped. Duplicates (same text)
keep the first proposal; the order is source order, then bug type.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...dataset.schema import BugType
from . import (
    off_by_one,
    off_by_one_boundary,
    remove_edge_case_check,
    swap_arguments,
    wrong_comparison,
    wrong_operator,
)
from .candidate import Candidate, Mutant
from .realism import RealismRule, unrealistic
from .source import Parsed, SourceMap, resolve, same_tree

OPERATORS = (off_by_one, off_by_one_boundary, wrong_operator, wrong_comparison, swap_arguments, remove_edge_case_check)
BUG_TYPE_ORDER: tuple[BugType, ...] = tuple(op.BUG_TYPE for op in OPERATORS)
CONTEXT_MAX_CHARS = 60
SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)


@dataclass(frozen=True)
class Enumeration:
    """Every verified single edit of one canonical: the realistic mutants and those a rule removed."""

    mutants: tuple[Mutant, ...]
    removed: tuple[tuple[RealismRule, Mutant], ...]

    def removed_by_rule(self) -> dict[RealismRule, Counter[BugType]]:
        """How many candidates each rule removed, by bug type (rules that removed none are absent)."""
        counts: dict[RealismRule, Counter[BugType]] = {}
        for rule, mutant in self.removed:
            counts.setdefault(rule, Counter())[mutant.bug_type] += 1
        return counts


def enumerate_candidates(canonical: str, bug_types: Sequence[BugType] = BUG_TYPE_ORDER) -> Enumeration:
    """All verified single-edit mutants of ``canonical`` (which must parse), in a fixed order, split by realism."""
    parsed = Parsed.of(canonical)
    candidates = [c for op in OPERATORS if op.BUG_TYPE in bug_types for c in op.propose(parsed)]
    candidates.sort(key=lambda c: (c.span[0], c.span[1], BUG_TYPE_ORDER.index(c.bug_type), c.after))
    seen = {canonical}
    mutants: list[Mutant] = []
    removed: list[tuple[RealismRule, Mutant]] = []
    for candidate in candidates:
        realised = _realise(parsed, candidate)
        if realised is None or realised[0].code in seen:
            continue
        mutant, tree = realised
        seen.add(mutant.code)
        rule = unrealistic(parsed, candidate, mutant.code, tree)
        if rule is None:
            mutants.append(mutant)
        else:
            removed.append((rule, mutant))
    return Enumeration(tuple(mutants), tuple(removed))


def enumerate_mutants(canonical: str, bug_types: Sequence[BugType] = BUG_TYPE_ORDER) -> list[Mutant]:
    """The realistic verified single-edit mutants of ``canonical`` (which must parse), in a fixed order."""
    return list(enumerate_candidates(canonical, bug_types).mutants)


def count_removed(enumerations: Sequence[Enumeration]) -> dict[str, dict[str, int]]:
    """``{rule: {bug_type: n}}`` summed over ``enumerations``, every rule and bug type present (report form)."""
    totals: dict[RealismRule, Counter[BugType]] = {rule: Counter() for rule in RealismRule}
    for enumeration in enumerations:
        for rule, counts in enumeration.removed_by_rule().items():
            totals[rule].update(counts)
    return {rule.value: {t.value: totals[rule][t] for t in BUG_TYPE_ORDER} for rule in RealismRule}


def _realise(parsed: Parsed, candidate: Candidate) -> tuple[Mutant, ast.Module] | None:
    """The candidate spliced into the canonical, with its tree, if the text parses to exactly the intended edit."""
    text = parsed.source.text
    start, end = candidate.span
    code = text[:start] + candidate.after + text[end:]
    try:
        got = ast.parse(code)
    except SyntaxError:
        return None
    expected = ast.parse(text)  # a fresh copy with the same paths, cheaper than deepcopy
    candidate.expect(expected)
    if not same_tree(got, expected):
        return None
    before = text[start:end]
    line = parsed.source.line_of(start)
    return Mutant(
        bug_type=candidate.bug_type,
        code=code,
        span=(start, end),
        before=before,
        after=candidate.after,
        line=line,
        bug_description=_describe(parsed, candidate, line),
    ), got


def _describe(parsed: Parsed, candidate: Candidate, line: int) -> str:
    """``Changed `n < 1` to `n <= 1` on line 2``, quoting the widest short one-line expression or statement."""
    src: SourceMap = parsed.source
    start, end = candidate.span
    if candidate.bug_type is BugType.REMOVE_EDGE_CASE_CHECK:
        node = resolve(parsed.tree, candidate.anchor)
        header = src.segment((src.span(node)[0], src.span(node.test)[1])) + ":"
        last = src.line_of(end - 1)
        lines = f"line {line}" if last == line else f"lines {line}-{last}"
        return f"Removed the edge-case check `{header}` and its body on {lines}"
    context = (start, end)
    for depth in range(len(candidate.anchor), -1, -1):
        node = resolve(parsed.tree, candidate.anchor[:depth])
        statement = isinstance(node, SIMPLE_STATEMENTS)
        if not (isinstance(node, ast.expr) or statement):
            break
        span = src.span(node)
        fits = span[0] <= start and end <= span[1] and "\n" not in src.segment(span)
        if fits and span[1] - span[0] <= CONTEXT_MAX_CHARS:
            context = span
        elif depth < len(candidate.anchor):
            break
        if statement:
            break
    before = src.segment(context)
    after = src.text[context[0] : start] + candidate.after + src.text[end : context[1]]
    return f"Changed `{before}` to `{after}` on line {line}"
