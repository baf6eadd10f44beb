"""Stacked mutants: composition of line-disjoint single edits, the candidates, one per size, their ids."""

from __future__ import annotations

import ast

from execretrieval_mteb.construction.ids import assign_stacked_ids
from execretrieval_mteb.construction.mutation import enumerate_mutants
from execretrieval_mteb.construction.selection import edit_lines
from execretrieval_mteb.construction.stacked import STACK_SIZES, compose, pick_stacked, stack_candidates

CANONICAL = (
    "def score(xs, k):\n"
    "    if not xs:\n"
    "        return 0\n"
    "    total = 0\n"
    "    for i in range(1, len(xs)):\n"
    "        if xs[i] > xs[i - 1]:\n"
    "            total += k\n"
    "    return total * 2\n"
)


def test_compose_applies_every_edit_on_the_canonical_text() -> None:
    mutants = enumerate_mutants(CANONICAL)
    by_line = {}
    for m in mutants:
        by_line.setdefault(m.line, m)
    edits = [by_line[5], by_line[8], by_line[2]]
    code = compose(CANONICAL, edits)
    assert code is not None
    expected = CANONICAL
    for m in sorted(edits, key=lambda m: -m.span[0]):
        expected = expected[: m.span[0]] + m.after + expected[m.span[1] :]
    assert code == expected
    ast.parse(code)
    same_span = [m for m in mutants if m.before == ">" and m.line == 6]
    assert len(same_span) == 2 and compose(CANONICAL, same_span) is None
    guard = next(m for m in mutants if m.after == "" and m.line == 2)
    inside = next(m for m in mutants if m.line == 3)
    assert compose(CANONICAL, [guard, inside]) is None  # the removed guard's lines hold the other edit


def test_candidates_use_line_disjoint_edits_and_are_deterministic() -> None:
    mutants = enumerate_mutants(CANONICAL)
    taken = frozenset([CANONICAL])
    stacked = stack_candidates(CANONICAL, "score", mutants, seed=0, taken=taken)
    assert stacked == stack_candidates(CANONICAL, "score", list(reversed(mutants)), seed=0, taken=taken)
    assert {s.n_edits for s in stacked} == set(STACK_SIZES)
    for s in stacked:
        lines = [edit_lines(m) for m in s.edits]
        assert all(not a & b for i, a in enumerate(lines) for b in lines[i + 1 :])
        assert s.code == compose(CANONICAL, s.edits) and s.code != CANONICAL
        row = s.to_row("s_0001")
        assert row["n_edits"] == len(row["edits"]) == len(row["bug_types"]) and row["label"] == "incorrect"
        assert [e["span"] for e in row["edits"]] == sorted(e["span"] for e in row["edits"])
    assert len({s.code for s in stacked}) == len(stacked)
    assert [s.n_edits for s in pick_stacked(stacked)] == [2, 3, 4]
    assert stack_candidates(CANONICAL, "score", mutants[:1], seed=0) == []


def test_stacked_ids_are_their_own_namespace_and_stable() -> None:
    items = [("score", "a"), ("score", "b"), ("other", "a")]
    ids = assign_stacked_ids(items, seed=0)
    assert sorted(ids) == ["s_0000", "s_0001", "s_0002"]
    assert assign_stacked_ids(items, seed=0) == ids
    assert assign_stacked_ids(items[::-1], seed=0) == ids[::-1]
