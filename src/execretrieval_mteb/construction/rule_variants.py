"""Stated-rule variants: plausible wrong implementations, one per rule the query states, that a test must kill.

The build's mutants are single mechanical edits, so gate 4 proves the tests catch every such
edit. It cannot see a rule the query states that no edit of the canonical happens to break: a
query that promises "the input list is left unchanged" while no test looks at the list after the
call, or "five-part addresses are rejected" with no five-part address among the tests. An
implementation that ignores the rule passes every test and would be judged correct.

So each task lists, in its validation-only table, one *rule variant* per stated rule: the program
a programmer would plausibly write if they missed that rule, written from the query alone::

    [[validation.rules]]
    rule = "values outside 0 to 127 give None"            # the query's words
    replace = [["value < 0 or value > 127", "value < 0"]]  # edits of the canonical, or:
    # code = '''def f(...): ...'''                         # a whole program

``replace`` pairs apply to the canonical in order, each ``old`` text occurring exactly once.
Gate 4 then runs every variant on the task's tests: a variant that passes them all means a stated
rule no test pins, and the task is excluded ("tests miss a stated rule: ...; add a test") until a
test kills it. Variants are never shipped and never enter the corpus.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from ..oracle.outcomes import Suite, SuiteResult


@dataclass(frozen=True)
class RuleVariant:
    """A program that breaks one stated rule; ``rule`` quotes or paraphrases the query."""

    rule: str
    code: str


class RuleVariantError(ValueError):
    """A rule variant that cannot be built; the message says which and how to fix it."""


def build_variant(canonical: str, function_name: str, entry: object, index: int) -> RuleVariant:
    """Turn one ``[[validation.rules]]`` table into a variant (``index`` is 1-based, for messages)."""
    where = f"validation.rules item {index}"
    if not isinstance(entry, dict):
        raise RuleVariantError(f"{where} must be a table with 'rule' and 'replace' or 'code'")
    unknown = sorted(set(entry) - {"rule", "replace", "code"})
    if unknown:
        raise RuleVariantError(f"{where} has unknown field '{unknown[0]}'; use rule, replace or code")
    rule = entry.get("rule")
    if not isinstance(rule, str) or not rule.strip():
        raise RuleVariantError(f"{where} needs 'rule', the query's words for the rule it breaks")
    if ("replace" in entry) == ("code" in entry):
        raise RuleVariantError(f"{where} needs exactly one of 'replace' (edits of the canonical) or 'code'")
    if "code" in entry:
        code = entry["code"]
        if not isinstance(code, str) or not code.strip():
            raise RuleVariantError(f"{where}: 'code' must be a non-empty string ('''...''')")
        code = code.replace("\r\n", "\n")
    else:
        code = _apply(canonical, entry["replace"], where)
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise RuleVariantError(f"{where} does not parse (line {exc.lineno}: {exc.msg}); fix its code") from None
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function_name not in defined:
        raise RuleVariantError(f"{where} does not define {function_name}(); a variant implements the same target")
    if ast.dump(tree) == ast.dump(ast.parse(canonical)):
        raise RuleVariantError(f"{where} is the canonical itself; make it break the rule")
    return RuleVariant(" ".join(rule.split()), code)


def _apply(canonical: str, pairs: object, where: str) -> str:
    if not isinstance(pairs, list) or not pairs:
        raise RuleVariantError(f"{where}: 'replace' must be a non-empty array of [old, new] pairs")
    code = canonical
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise RuleVariantError(f"{where}: each 'replace' item must be a pair of strings [old, new]")
        old, new = (p.replace("\r\n", "\n") for p in pair)
        found = code.count(old) if old else 0
        if found != 1:
            raise RuleVariantError(
                f"{where}: {old!r} occurs {found} times in the canonical (after the earlier edits); "
                "quote a longer, unique piece"
            )
        code = code.replace(old, new)
    return code


def variant_suites(variants: Sequence[RuleVariant], tests: Sequence[str]) -> list[Suite]:
    """One suite per variant: the variant's code on the task's own tests."""
    return [Suite(v.code, tuple(tests)) for v in variants]


def surviving(variants: Sequence[RuleVariant], results: Sequence[SuiteResult]) -> list[RuleVariant]:
    """Variants that passed every test (a harness error is not a pass: that suite was not judged)."""
    return [v for v, r in zip(variants, results) if r.judged and all(o.passed for o in r.outcomes)]


def missed_rule(variant: RuleVariant) -> str:
    """Gate 4's reason for a surviving variant."""
    return f"tests miss a stated rule: '{variant.rule}' (its rule variant passes every test); add a test that pins it"


def check_rules(variants: Sequence[RuleVariant], results: Sequence[SuiteResult]) -> list[str]:
    """Gate 4's reasons: each stated rule whose variant passes every test."""
    return [missed_rule(v) for v in surviving(variants, results)]
