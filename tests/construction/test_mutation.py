"""Each bug type's operator on small examples, and the engine's splice guarantees."""

from __future__ import annotations

import ast

import pytest

from execretrieval_mteb.construction.mutation import (
    BUG_TYPE_ORDER,
    RealismRule,
    count_removed,
    enumerate_candidates,
    enumerate_mutants,
)
from execretrieval_mteb.dataset.schema import BugType


def _edits(code: str, bug_type: BugType) -> set[tuple[str, str]]:
    """(before, after) of every mutant of one type: the exact spliced texts."""
    return {(m.before, m.after) for m in enumerate_mutants(code, [bug_type])}


def _codes(code: str, bug_type: BugType) -> set[str]:
    return {m.code for m in enumerate_mutants(code, [bug_type])}


def test_off_by_one_shifts_plain_literals_and_indices_but_not_bounds() -> None:
    code = "def f(a, i):\n    x = 2\n    if i < 3:\n        return a[i]\n    return x\n"
    assert _edits(code, BugType.OFF_BY_ONE) == {("2", "3"), ("2", "1"), ("i", "i + 1"), ("i", "i - 1")}


def test_off_by_one_keeps_literal_base_and_treats_minus_one_as_a_literal() -> None:
    code = "def f(n):\n    return (n & 0xFF) + -1\n"
    removed = enumerate_candidates(code, [BugType.OFF_BY_ONE]).removed
    assert [(rule, m.before, m.after) for rule, m in removed] == [
        (RealismRule.MAGIC_CONSTANT, "0xFF", "0x100"),  # the base is kept in the text, then the mask is judged
        (RealismRule.MAGIC_CONSTANT, "0xFF", "0xFE"),
        (RealismRule.ODD_SENTINEL, "-1", "-2"),
        (RealismRule.NO_OP_ARITHMETIC, "-1", "0"),
    ]


def test_boundary_shifts_comparison_literals_range_and_slice_bounds() -> None:
    code = "def f(s, n):\n    if n <= 0:\n        return ''\n    for i in range(1, n + 1, 2):\n        pass\n    return s[:n]\n"
    edits = _edits(code, BugType.OFF_BY_ONE_BOUNDARY)
    assert edits == {("0", "1"), ("0", "-1"), ("1", "2"), ("1", "0"), ("n", "n + 1"), ("n", "n - 1")}
    codes = _codes(code, BugType.OFF_BY_ONE_BOUNDARY)
    assert "    for i in range(1, n + 2, 2):\n" in "".join(codes)
    assert "    for i in range(0, n + 1, 2):\n" in "".join(codes)
    assert "    return s[:n + 1]\n" in "".join(codes)
    assert not any("range(1, n + 1, 3)" in c for c in codes)  # the step is not a bound


def test_wrong_operator_swaps_arithmetic_bitwise_boolean_and_augmented() -> None:
    code = "def f(a, b):\n    a += b\n    return a - b if a and b else a & b\n"
    assert _edits(code, BugType.WRONG_OPERATOR) == {
        ("+=", "-="),
        ("-", "+"),
        ("and", "or"),
        ("&", "|"),
        ("&", "^"),
    }


def test_wrong_operator_finds_the_operator_between_parenthesised_operands() -> None:
    code = "def f(a, b, c):\n    return (a + b) / (c - 1)\n"
    codes = _codes(code, BugType.WRONG_OPERATOR)
    assert "def f(a, b, c):\n    return (a + b) * (c - 1)\n" in codes
    assert "def f(a, b, c):\n    return (a + b) // (c - 1)\n" in codes
    assert "def f(a, b, c):\n    return (a - b) / (c - 1)\n" in codes


def test_wrong_operator_in_a_three_way_boolean_chain_parses_as_claimed() -> None:
    code = "def f(a, b, c):\n    return a and b and c\n"
    assert _codes(code, BugType.WRONG_OPERATOR) == {
        "def f(a, b, c):\n    return a or b and c\n",
        "def f(a, b, c):\n    return a and b or c\n",
    }


def test_wrong_comparison_swaps_every_comparison_family() -> None:
    code = "def f(a, b, s):\n    return a < b, a == b, a is None, a not in s\n"
    assert _edits(code, BugType.WRONG_COMPARISON) == {
        ("<", "<="),
        ("<", ">"),
        ("==", "!="),
        ("is", "is not"),
        ("not in", "in"),
    }


def test_swap_arguments_swaps_call_arguments_and_non_commutative_operands() -> None:
    code = "def f(a, b):\n    return divmod(a, b), (a + 1) - b, max(a, b), a + b\n"
    assert _edits(code, BugType.SWAP_ARGUMENTS) == {("a, b", "b, a"), ("(a + 1) - b", "b - (a + 1)")}


def test_remove_edge_case_check_removes_whole_guard_lines_only() -> None:
    code = (
        "def f(xs):\n"
        "    if not xs:\n"
        "        raise ValueError('empty')\n"
        "    total = 0\n"
        "    for x in xs:\n"
        "        if x < 0:\n"
        "            continue\n"
        "        if x > 100:\n"
        "            total += 1\n"  # not a guard: the body does not leave
        "        total += x\n"
        "    return total\n"
    )
    mutants = enumerate_mutants(code, [BugType.REMOVE_EDGE_CASE_CHECK])
    assert [m.line for m in mutants] == [2, 6]
    assert mutants[0].code == code.replace("    if not xs:\n        raise ValueError('empty')\n", "")
    assert mutants[0].bug_description == "Removed the edge-case check `if not xs:` and its body on lines 2-3"


def test_a_guard_that_is_the_whole_block_is_not_removed() -> None:
    code = "def f(x):\n    if x:\n        return 1\n"
    assert enumerate_mutants(code, [BugType.REMOVE_EDGE_CASE_CHECK]) == []


@pytest.mark.parametrize(
    "code",
    [
        "def f(n):\n    if n < 1:\n        return 0\n    return n & (-n)\n",
        "def g(s, k):  # café\n    é = 'ü'\n    return s[k - 1:] + é * (k % 3) if k >= 2 else s[::-1]\n",
        "def h(xs):\n    out = [x for x in xs if x % 2 == 0]\n    return sorted(out, key=lambda v: -v)[:3] or None\n",
    ],
)
def test_every_mutant_is_one_contiguous_edit_that_parses_and_differs(code: str) -> None:
    mutants = enumerate_mutants(code)
    assert mutants
    assert len({m.code for m in mutants}) == len(mutants)
    for m in mutants:
        start, end = m.span
        assert code[start:end] == m.before
        assert code[:start] + m.after + code[end:] == m.code
        assert m.code != code
        ast.parse(m.code)
        assert m.line == code.count("\n", 0, start) + 1
        assert m.bug_description.endswith(f"line {m.line}") or m.bug_type is BugType.REMOVE_EDGE_CASE_CHECK


def test_descriptions_quote_the_enclosing_expression() -> None:
    code = "def f(n):\n    if n < 1:\n        return 0\n    return n\n"
    described = {m.bug_description for m in enumerate_mutants(code, [BugType.WRONG_COMPARISON])}
    assert "Changed `n < 1` to `n <= 1` on line 2" in described


def test_enumeration_is_deterministic_and_covers_all_six_types() -> None:
    code = (
        "def f(xs, k):\n"
        "    if k < 1:\n"
        "        return []\n"
        "    out = []\n"
        "    for i in range(len(xs) - k + 1):\n"
        "        if xs[i] > xs[i + k - 1] and i % 2 == 0:\n"
        "            out.append(pow(xs[i], k))\n"
        "    return out\n"
    )
    first, second = enumerate_mutants(code), enumerate_mutants(code)
    assert first == second
    assert {m.bug_type for m in first} == set(BUG_TYPE_ORDER) == set(BugType)


def _removed(code: str) -> set[tuple[RealismRule, str, str]]:
    return {(rule, m.before, m.after) for rule, m in enumerate_candidates(code).removed}


def test_no_op_arithmetic_removes_identities_and_constants_only() -> None:
    code = (
        "def f(keys, x, n):\n"
        "    i = len(keys) - 1\n"
        "    i += 1\n"
        "    return x * 2 + n % 2 + (x << 3)\n"
    )
    removed = [m for rule, m in enumerate_candidates(code).removed if rule is RealismRule.NO_OP_ARITHMETIC]
    assert len(removed) == 4
    assert {(m.before, m.after) for m in removed} == {("1", "0"), ("2", "1")}  # - 0, += 0, * 1, % 1
    kept = {(m.before, m.after) for m in enumerate_mutants(code, [BugType.OFF_BY_ONE])}
    assert kept == {("1", "2")}  # - 2 and += 2; the other shifts are units (magic_constant)
    codes = {m.code for m in enumerate_mutants(code)}
    assert not any("len(keys) - 0" in c or "i += 0" in c or "x * 1" in c or "n % 1" in c for c in codes)


def test_boundary_shifts_next_to_equality_are_not_boundaries() -> None:
    code = "def f(s, i, n):\n    if i == n - 1 or s[:2] == 'ab':\n        return n != 0\n    return i < 3\n"
    rule = RealismRule.EQUALITY_NOT_A_BOUNDARY
    assert {(b, a) for r, b, a in _removed(code) if r is rule} == {("1", "2"), ("0", "1"), ("0", "-1")}
    assert (RealismRule.NO_OP_ARITHMETIC, "1", "0") in _removed(code)  # n - 0: the first rule that applies counts
    kept = _edits(code, BugType.OFF_BY_ONE_BOUNDARY)
    assert kept == {("2", "3"), ("2", "1"), ("3", "4"), ("3", "2")}  # a slice bound and a `<` literal


def test_swaps_that_put_a_literal_first_are_removed() -> None:
    code = (
        "def f(y, d, k, x):\n"
        "    a = y % 100\n"
        "    b = d.get(k, 0)\n"
        "    c = 1 - x\n"
        "    return divmod(a, b), c, 'ab'.replace('a', 'b')\n"
    )
    rule = RealismRule.LITERAL_FIRST_SWAP
    assert {(b, a) for r, b, a in _removed(code) if r is rule} == {("y % 100", "100 % y"), ("k, 0", "0, k")}
    assert _edits(code, BugType.SWAP_ARGUMENTS) == {("1 - x", "x - 1"), ("a, b", "b, a"), ("'a', 'b'", "'b', 'a'")}


def test_edits_visible_only_as_whitespace_are_removed() -> None:
    code = "def f(text):\n    return pad(text, ' ', '').split(',')\n"
    assert (RealismRule.WHITESPACE_ONLY, "' ', ''", "'', ' '") in _removed(code)


def test_removed_counts_have_every_rule_and_bug_type() -> None:
    counts = count_removed([enumerate_candidates("def f(n):\n    return n - 1 == 0\n")])
    assert set(counts) == {r.value for r in RealismRule}
    assert all(set(by_type) == {t.value for t in BugType} for by_type in counts.values())
    assert counts["no_op_arithmetic"]["off_by_one_boundary"] == 1  # n - 0 == 0
    assert counts["equality_not_a_boundary"]["off_by_one_boundary"] == 3  # n - 2 == 0, n - 1 == 1, n - 1 == -1
    assert counts["literal_first_swap"]["swap_arguments"] == 1  # 1 - n
    assert counts["magic_constant"] == {t.value: 0 for t in BugType}


def test_units_masks_bases_and_steps_are_not_off_by_one_sites() -> None:
    code = (
        "def f(n, s, xs):\n"
        "    t = n // 2 + (n & 0xFF) + (n << 8) + n * 3\n"
        "    t %= 1440\n"
        "    h, m = divmod(t, 60)\n"
        "    return t + h + int(s, 16) + xs[::-1][0] + sum(range(0, n, 2)) + pow(n, 2, 7) + (t - 1)\n"
    )
    magic = {(b, a) for r, b, a in _removed(code) if r is RealismRule.MAGIC_CONSTANT}
    assert magic == {
        ("2", "3"), ("0xFF", "0x100"), ("0xFF", "0xFE"), ("8", "7"), ("8", "9"), ("3", "2"), ("3", "4"),
        ("1440", "1439"), ("1440", "1441"), ("60", "59"), ("60", "61"), ("16", "15"), ("16", "17"),
        ("-1", "-2"), ("-1", "0"), ("2", "1"), ("7", "6"), ("7", "8"),
    }
    kept = _edits(code, BugType.OFF_BY_ONE)
    assert ("1", "2") in kept and ("0", "1") in kept  # t - 2, xs[::-1][1]: a count and an index
    assert not any(b in ("0xFF", "1440", "60", "16") for b, _a in kept)


def test_a_shift_that_repeats_a_table_entry_is_removed() -> None:
    code = "def f(n):\n    witnesses = (2, 3, 5, 7)\n    return [n % w for w in witnesses]\n"
    duplicate = {(b, a) for r, b, a in _removed(code) if r is RealismRule.DUPLICATE_TABLE_ENTRY}
    assert duplicate == {("2", "3"), ("3", "2")}
    assert {("5", "6"), ("7", "8"), ("2", "1")} <= _edits(code, BugType.OFF_BY_ONE)


def test_range_swaps_and_minus_two_sentinels_are_removed() -> None:
    code = (
        "def f(xs, n):\n"
        "    for i in range(1, n + 1):\n"
        "        if xs[i - 1] == n:\n"
        "            return i - 1\n"
        "    return -1\n"
    )
    removed = _removed(code)
    assert (RealismRule.RANGE_SWAP, "1, n + 1", "n + 1, 1") in removed
    assert (RealismRule.ODD_SENTINEL, "-1", "-2") in removed
    assert ("-1", "0") in _edits(code, BugType.OFF_BY_ONE)  # not found as 0: a plausible slip
    assert not _edits(code, BugType.SWAP_ARGUMENTS) & {("1, n + 1", "n + 1, 1")}


def test_quantities_dict_keys_and_tautologies_are_removed() -> None:
    code = (
        "def f(value, leap, score):\n"
        "    days = value[1] if leap else value[0]\n"
        "    grade = {6: 'D', 7: 'C'}.get(score, 'F')\n"
        "    unit = (3600, 'h')\n"
        "    return value[0] == value[-1], days, grade, unit, 1\n"
    )
    removed = _removed(code)
    assert (RealismRule.TAUTOLOGY, "-1", "0") in removed  # value[0] == value[0]
    assert (RealismRule.TAUTOLOGY, "1", "0") in removed  # value[0] if leap else value[0]
    assert (RealismRule.DUPLICATE_TABLE_ENTRY, "6", "7") in removed and (RealismRule.DUPLICATE_TABLE_ENTRY, "7", "6") in removed
    assert {(RealismRule.MAGIC_CONSTANT, "3600", a) for a in ("3599", "3601")} <= removed
    kept = _edits(code, BugType.OFF_BY_ONE)
    assert {("6", "5"), ("7", "8"), ("1", "2"), ("1", "0")} <= kept  # keys moved to free values; a small count


def test_a_sign_test_of_a_product_has_no_boundary_to_shift() -> None:
    code = "def f(fa, fm, n):\n    if fa * fm < 0:\n        return n\n    return n < 0\n"
    removed = {(b, a) for r, b, a in _removed(code) if r is RealismRule.SIGN_TEST}
    assert removed == {("0", "1"), ("0", "-1")}  # fa * fm < 1, fa * fm < -1
    assert {("0", "1"), ("0", "-1")} <= _edits(code, BugType.OFF_BY_ONE_BOUNDARY)  # n < 1, n < -1: kept


def test_products_made_floor_divisions_and_swapped_shifts_or_powers_are_removed() -> None:
    code = "def f(s, b, c, n, x):\n    area = (s - b) * (s - c)\n    x *= 3\n    return area / 2, 1 << n, 2 ** n, x, s - b\n"
    removed = _removed(code)
    assert (RealismRule.PRODUCT_TO_FLOOR_DIVISION, "*", "//") in removed
    assert (RealismRule.PRODUCT_TO_FLOOR_DIVISION, "*=", "//=") in removed
    assert {(RealismRule.SHIFT_OR_POWER_SWAP, "1 << n", "n << 1"), (RealismRule.SHIFT_OR_POWER_SWAP, "2 ** n", "n ** 2")} <= removed
    assert {("*", "+"), ("/", "//"), ("*=", "+=")} <= _edits(code, BugType.WRONG_OPERATOR)  # the real slips stay
    assert ("s - b", "b - s") in _edits(code, BugType.SWAP_ARGUMENTS)


def test_an_operator_given_the_same_operand_twice_is_a_tautology() -> None:
    code = "def f(xs, i):\n    return xs[i] - xs[i - 1]\n"
    removed = {(b, a) for r, b, a in _removed(code) if r is RealismRule.TAUTOLOGY}
    assert ("i", "i - 1") in removed  # xs[i - 1] - xs[i - 1]
    assert ("i", "i + 1") in _edits(code, BugType.OFF_BY_ONE)  # xs[i + 1] - xs[i - 1]: kept


def test_an_empty_pattern_swap_and_a_two_way_chain_are_removed() -> None:
    code = "def f(s, ch):\n    return s.replace('-', ''), '0' <= ch <= '9'\n"
    removed = _removed(code)
    assert (RealismRule.EMPTY_PATTERN_SWAP, "'-', ''", "'', '-'") in removed
    chains = {(b, a) for r, b, a in removed if r is RealismRule.BROKEN_CHAIN}
    assert ("<=", ">=") in chains
    assert {("<=", "<")} <= _edits(code, BugType.WRONG_COMPARISON)  # '0' < ch <= '9': an off-by-one range, kept
