"""Realism rules: edits the operators can make but no programmer would write, filtered by name.

A distractor is meant to look like a bug someone could ship. Each rule below names one class of
mechanically valid edit that fails that bar; the engine drops a candidate at the first rule it
matches and counts it per rule and bug type (``candidates.removed_by_rule`` in the build report,
the same numbers the task doctor prints). Every rule is decided on the canonical's syntax tree
and the candidate's text alone, before anything runs.

- ``no_op_arithmetic``: a literal shifted so the operation it feeds does nothing or is constant:
  ``len(keys) - 1`` -> ``len(keys) - 0``, ``i += 1`` -> ``i += 0``, ``x * 2`` -> ``x * 1``,
  ``n % 2`` -> ``n % 1``. Nobody writes the identity; the edit reads as padding, not as a bug.
- ``equality_not_a_boundary``: an ``off_by_one_boundary`` shift of a literal compared with
  ``==``/``!=``/``is``/``in`` (``n == 0`` -> ``n == 1``): there is no boundary to be off by one.
- ``sign_test``: an ``off_by_one_boundary`` shift of the 0 a product is compared with
  (``fa * fm < 0`` -> ``fa * fm < 1``): the comparison asks for a sign, and a sign has no
  neighbouring value to be off by.
- ``literal_first_swap``: a ``swap_arguments`` edit that moves a literal in front of a
  non-literal (``y % 100`` -> ``100 % y``, ``d.get(k, 0)`` -> ``d.get(0, k)``): an order no one
  would write by mistake. Swapping two literals, or a literal back behind a name, is kept.
- ``magic_constant``: an ``off_by_one`` shift of a literal that names a unit or a quantity, not
  a count: a multiplier, divisor, modulus, exponent, shift amount or mask (``//= 2`` -> ``//= 3``,
  ``<< 8`` -> ``<< 9``, ``|= 8`` -> ``|= 9``, ``% 16`` -> ``% 17``), a literal written in hex, octal
  or binary (``& 0xFF`` -> ``& 0xFE``), the divisor of ``divmod``, the base of ``int``, an exponent
  or modulus of ``pow``, the step of a ``range`` or slice (``[::-1]`` -> ``[::-2]``), or any literal
  of 10 or more (``(3600, "h")`` -> ``(3601, "h")``, ``return 52`` -> ``return 51``, a month of 32
  days). Nobody miscounts these; an off-by-one bug sits in a small count, an index or an initial
  value (bounds are ``off_by_one_boundary``'s, where a shifted 100 is a real bug).
- ``duplicate_table_entry``: a literal shifted onto the value of another element of the same
  list, tuple or set literal, or onto another key of the same dict literal (Miller-Rabin
  witnesses ``(2, 3, 5, 7)`` -> ``(2, 2, 5, 7)``, ``{6: "D", 7: "C"}`` -> ``{7: "D", 7: "C"}``):
  a table with a repeated entry reads as a typo, not a bug.
- ``tautology``: an edit that makes the two sides of a comparison or of an operator, or the two
  branches of a conditional expression, the same code (``value[0] == value[-1]`` ->
  ``value[0] == value[0]``, ``a[i] if leap else a[0]`` -> ``a[0] if leap else a[0]``, ``n // x`` ->
  ``x // x``): a constant in disguise, which a reader sees at once.
- ``range_swap``: a ``swap_arguments`` edit inside ``range(...)``: the loop then never runs
  (``range(2, n + 1)`` -> ``range(n + 1, 2)``) or steps by its bound; no one writes either.
- ``product_to_floor_division``: a ``wrong_operator`` edit turning ``*`` into ``//``
  (``(s - b) * (s - c)`` -> ``(s - b) // (s - c)``, ``dy * s`` -> ``dy // s``): nobody reaches for
  a floor division where a product is meant; ``/`` <-> ``//`` and ``%`` <-> ``//`` stay (real slips).
- ``shift_or_power_swap``: a ``swap_arguments`` edit of ``<<``, ``>>`` or ``**`` (``1 << n`` ->
  ``n << 1``, ``2 ** 31`` -> ``31 ** 2``): the base and the exponent or shift are never confused.
- ``empty_pattern_swap``: a ``swap_arguments`` edit of ``.replace(old, "")`` into
  ``.replace("", old)``: inserting between every character is not a slip of deleting.
- ``broken_chain``: a ``wrong_comparison`` edit that leaves a chained comparison pointing two ways
  (``"0" <= ch <= "9"`` -> ``"0" <= ch >= "9"``): nobody writes a range test like that.
- ``odd_sentinel``: ``-1`` shifted to ``-2`` (``return -1`` -> ``return -2``, ``step = -1`` ->
  ``step = -2``): a sentinel or direction no one would pick.
- ``whitespace_only``: the mutant equals the canonical once every whitespace character is removed,
  inside string literals too (``.replace(" ", "")`` -> ``.replace("", " ")``): the difference is
  invisible to a reader, so a ranking cannot be asked to see it.
"""

from __future__ import annotations

import ast
import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass

from ...dataset.schema import BugType
from .candidate import Candidate
from .constants import is_bound_position
from .source import Parsed, Site, resolve, same_tree


class RealismRule(enum.Enum):
    """Why a candidate edit is not a bug a programmer would write (checked in this order)."""

    NO_OP_ARITHMETIC = "no_op_arithmetic"
    EQUALITY_NOT_A_BOUNDARY = "equality_not_a_boundary"
    SIGN_TEST = "sign_test"
    LITERAL_FIRST_SWAP = "literal_first_swap"
    MAGIC_CONSTANT = "magic_constant"
    DUPLICATE_TABLE_ENTRY = "duplicate_table_entry"
    TAUTOLOGY = "tautology"
    RANGE_SWAP = "range_swap"
    PRODUCT_TO_FLOOR_DIVISION = "product_to_floor_division"
    EMPTY_PATTERN_SWAP = "empty_pattern_swap"
    BROKEN_CHAIN = "broken_chain"
    SHIFT_OR_POWER_SWAP = "shift_or_power_swap"
    ODD_SENTINEL = "odd_sentinel"
    WHITESPACE_ONLY = "whitespace_only"


LITERAL_SHIFTS = (BugType.OFF_BY_ONE, BugType.OFF_BY_ONE_BOUNDARY)
EQUALITY_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
RIGHT_IDENTITY: dict[type[ast.operator], frozenset[int]] = {
    ast.Add: frozenset({0}),
    ast.Sub: frozenset({0}),
    ast.BitOr: frozenset({0}),
    ast.BitXor: frozenset({0}),
    ast.LShift: frozenset({0}),
    ast.RShift: frozenset({0}),
    ast.Mult: frozenset({0, 1}),  # x * 1 is x, x * 0 is constant
    ast.Div: frozenset({1}),
    ast.FloorDiv: frozenset({1}),
    ast.Mod: frozenset({1}),  # x % 1 is 0 on integers
    ast.Pow: frozenset({0, 1}),
    ast.BitAnd: frozenset({0}),
}
"""Right operand values that make ``x <op> value`` the identity or a constant."""
LEFT_IDENTITY: dict[type[ast.operator], frozenset[int]] = {
    ast.Add: frozenset({0}),
    ast.BitOr: frozenset({0}),
    ast.BitXor: frozenset({0}),
    ast.Mult: frozenset({0, 1}),
    ast.BitAnd: frozenset({0}),
}
"""Left operand values that make ``value <op> x`` the identity or a constant."""
SCALE_OPERATORS = (
    ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor
)
"""Operators whose literal operand is a unit (scale, divisor, modulus, exponent, shift, mask)."""
UNIT_ARGUMENTS: dict[str, frozenset[int]] = {
    "divmod": frozenset({1}),
    "int": frozenset({1}),
    "pow": frozenset({1, 2}),
    "range": frozenset({2}),
}
"""Positional arguments that are units: a divisor, a base, an exponent or modulus, a step."""
RADIX_PREFIXES = ("0x", "0o", "0b")
QUANTITY = 10
"""Literals this large (in absolute value) are quantities or table values, never an off-by-one count."""


def squash(text: str) -> str:
    """``text`` without any whitespace (string literals included)."""
    return "".join(text.split())


@dataclass(frozen=True)
class Edit:
    """One candidate as the rules see it: the canonical, the edit, and the mutant's text and tree."""

    parsed: Parsed
    candidate: Candidate
    code: str
    tree: ast.Module
    """The mutant's syntax tree (the engine parsed it already to verify the edit)."""


def unrealistic(parsed: Parsed, candidate: Candidate, code: str, tree: ast.Module) -> RealismRule | None:
    """The first rule ``candidate`` (spliced into ``code``, parsed as ``tree``) breaks, or None when it is realistic."""
    edit = Edit(parsed, candidate, code, tree)
    for rule, bug_types, breaks in _CHECKS:
        if (bug_types is None or candidate.bug_type in bug_types) and breaks(edit):
            return rule
    return None


def is_literal(node: ast.AST) -> bool:
    """A constant, or a negated numeric constant (``-1``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _int_literal_value(node: ast.AST) -> int | None:
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if negative else node  # type: ignore[attr-defined]
    if isinstance(inner, ast.Constant) and type(inner.value) is int:
        return -inner.value if negative else inner.value
    return None


def _new_value(candidate: Candidate) -> int | None:
    try:
        value = ast.literal_eval(candidate.after)
    except (ValueError, SyntaxError):
        return None
    return value if type(value) is int else None


def _is_no_op(parsed: Parsed, candidate: Candidate) -> bool:
    """A shifted integer literal whose new value is an identity (or annihilator) of its operation."""
    site = parsed.by_path.get(candidate.anchor)
    if site is None or _int_literal_value(site.node) is None:
        return False  # an expression shifted by one (``a[i]`` -> ``a[i + 1]``), not a literal
    value = _new_value(candidate)
    parent = parsed.parent(site)
    if value is None or parent is None:
        return False
    field = site.path[-1][0]
    node = parent.node
    if isinstance(node, ast.BinOp):
        table = RIGHT_IDENTITY if field == "right" else LEFT_IDENTITY
        return value in table.get(type(node.op), frozenset())
    if isinstance(node, ast.AugAssign) and field == "value":
        return value in RIGHT_IDENTITY.get(type(node.op), frozenset())
    return False


def _shifts_an_equality_operand(parsed: Parsed, candidate: Candidate) -> bool:
    """The shifted literal reaches (through ``+``/``-``) a comparison operand next to ``==``-like operators only."""
    site: Site | None = parsed.by_path.get(candidate.anchor)
    while site is not None:
        parent = parsed.parent(site)
        if parent is None:
            return False
        if is_bound_position(parsed, site):
            if not isinstance(parent.node, ast.Compare):
                return False  # a range or slice bound: a boundary indeed
            field, index = site.path[-1]
            position = 0 if field == "left" else (index or 0) + 1
            ops = parent.node.ops
            adjacent = [ops[i] for i in (position - 1, position) if 0 <= i < len(ops)]
            return all(isinstance(op, EQUALITY_OPS) for op in adjacent)
        node = parent.node
        additive = isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
        if not (additive or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub))):
            return False
        site = parent
    return False


def _puts_a_literal_first(parsed: Parsed, candidate: Candidate) -> bool:
    """The swap moves a literal ahead of a non-literal (``y % 100`` -> ``100 % y``)."""
    node = resolve(parsed.tree, candidate.anchor)
    src = parsed.source
    if isinstance(node, ast.BinOp):
        first, second = node.left, node.right
    elif isinstance(node, ast.Call):
        bounds = src.span(node)
        pairs = [
            (a, b)
            for a, b in zip(node.args, node.args[1:])
            if src.with_parens(src.span(a), bounds)[0] == candidate.span[0]
        ]
        if not pairs:
            return False
        first, second = pairs[0]
    else:
        return False
    return is_literal(second) and not is_literal(first)


def _shifted_literal(parsed: Parsed, candidate: Candidate) -> tuple[int, int] | None:
    """(old, new) when the candidate shifts an integer literal, else None."""
    site = parsed.by_path.get(candidate.anchor)
    old = None if site is None else _int_literal_value(site.node)
    new = _new_value(candidate)
    return None if old is None or new is None else (old, new)


def _shifts_a_unit(parsed: Parsed, candidate: Candidate) -> bool:
    """The shifted literal is a scale, divisor, modulus, exponent, shift, mask, base or step."""
    site = parsed.by_path.get(candidate.anchor)
    shift = _shifted_literal(parsed, candidate)
    if site is None or shift is None:
        return False
    if abs(shift[0]) >= QUANTITY:
        return True
    if parsed.source.segment(parsed.source.span(site.node)).lstrip("-+ ").lower().startswith(RADIX_PREFIXES):
        return True
    parent = parsed.parent(site)
    if parent is None:
        return False
    field, index = site.path[-1]
    node = parent.node
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, SCALE_OPERATORS)
    if isinstance(node, ast.AugAssign):
        return field == "value" and isinstance(node.op, SCALE_OPERATORS)
    if isinstance(node, ast.Slice):
        return field == "step"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and field == "args":
        return index in UNIT_ARGUMENTS.get(node.func.id, frozenset())
    return False


def _repeats_a_table_entry(parsed: Parsed, candidate: Candidate) -> bool:
    """The new value equals another literal element of the list/tuple/set the literal sits in."""
    shift = _shifted_literal(parsed, candidate)
    site = parsed.by_path.get(candidate.anchor)
    parent = None if site is None else parsed.parent(site)
    if shift is None or parent is None or site is None:
        return False
    if isinstance(parent.node, (ast.List, ast.Tuple, ast.Set)):
        siblings = parent.node.elts
    elif isinstance(parent.node, ast.Dict) and site.path[-1][0] == "keys":
        siblings = [k for k in parent.node.keys if k is not None]
    else:
        return False
    return any(_int_literal_value(e) == shift[1] for e in siblings if e is not site.node)


def _degenerate_count(tree: ast.AST) -> int:
    """Comparisons and operators with two identical operands, conditional expressions with identical branches."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = (node.left, *node.comparators)
            count += sum(same_tree(a, b) for a, b in zip(operands, operands[1:]))
        elif isinstance(node, ast.IfExp):
            count += same_tree(node.body, node.orelse)
        elif isinstance(node, ast.BinOp):
            count += same_tree(node.left, node.right)
    return count


@functools.lru_cache(maxsize=8)
def _canonical_degenerates(text: str) -> int:
    """``_degenerate_count`` of a canonical, once per canonical (every candidate compares with it)."""
    return _degenerate_count(ast.parse(text))


def _degenerates(edit: Edit) -> bool:
    """The mutant has more degenerate comparisons, operators or conditionals than the canonical."""
    return _degenerate_count(edit.tree) > _canonical_degenerates(edit.parsed.source.text)


def _swaps_range_arguments(parsed: Parsed, candidate: Candidate) -> bool:
    node = resolve(parsed.tree, candidate.anchor)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def _shifts_a_sign_test(parsed: Parsed, candidate: Candidate) -> bool:
    """A literal 0 compared directly with a product, shifted."""
    shift = _shifted_literal(parsed, candidate)
    site = parsed.by_path.get(candidate.anchor)
    parent = None if site is None else parsed.parent(site)
    if shift is None or shift[0] != 0 or parent is None or not isinstance(parent.node, ast.Compare):
        return False
    operands = [parent.node.left, *parent.node.comparators]
    return any(isinstance(o, ast.BinOp) and isinstance(o.op, ast.Mult) for o in operands if o is not site.node)


def _product_to_floor_division(parsed: Parsed, candidate: Candidate) -> bool:
    node = resolve(parsed.tree, candidate.anchor)
    return (isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Mult)
            and candidate.after.rstrip("=") == "//")


def _swaps_shift_or_power(parsed: Parsed, candidate: Candidate) -> bool:
    node = resolve(parsed.tree, candidate.anchor)
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.LShift, ast.RShift, ast.Pow))


def _swaps_in_an_empty_pattern(parsed: Parsed, candidate: Candidate) -> bool:
    """``s.replace(x, "")`` -> ``s.replace("", x)``."""
    node = resolve(parsed.tree, candidate.anchor)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "")


UP, DOWN = (ast.Lt, ast.LtE), (ast.Gt, ast.GtE)


def _breaks_a_chain(tree: ast.Module) -> bool:
    """The mutant has a chained comparison whose operators point both up and down."""
    return any(
        isinstance(n, ast.Compare) and len(n.ops) > 1
        and any(isinstance(o, UP) for o in n.ops) and any(isinstance(o, DOWN) for o in n.ops)
        for n in ast.walk(tree)
    )


_CHECKS: tuple[tuple[RealismRule, tuple[BugType, ...] | None, Callable[[Edit], bool]], ...] = (
    (RealismRule.NO_OP_ARITHMETIC, LITERAL_SHIFTS, lambda e: _is_no_op(e.parsed, e.candidate)),
    (RealismRule.EQUALITY_NOT_A_BOUNDARY, (BugType.OFF_BY_ONE_BOUNDARY,),
     lambda e: _shifts_an_equality_operand(e.parsed, e.candidate)),
    (RealismRule.SIGN_TEST, (BugType.OFF_BY_ONE_BOUNDARY,), lambda e: _shifts_a_sign_test(e.parsed, e.candidate)),
    (RealismRule.LITERAL_FIRST_SWAP, (BugType.SWAP_ARGUMENTS,), lambda e: _puts_a_literal_first(e.parsed, e.candidate)),
    (RealismRule.MAGIC_CONSTANT, (BugType.OFF_BY_ONE,), lambda e: _shifts_a_unit(e.parsed, e.candidate)),
    (RealismRule.DUPLICATE_TABLE_ENTRY, LITERAL_SHIFTS, lambda e: _repeats_a_table_entry(e.parsed, e.candidate)),
    (RealismRule.TAUTOLOGY, None, _degenerates),
    (RealismRule.RANGE_SWAP, (BugType.SWAP_ARGUMENTS,), lambda e: _swaps_range_arguments(e.parsed, e.candidate)),
    (RealismRule.PRODUCT_TO_FLOOR_DIVISION, (BugType.WRONG_OPERATOR,),
     lambda e: _product_to_floor_division(e.parsed, e.candidate)),
    (RealismRule.SHIFT_OR_POWER_SWAP, (BugType.SWAP_ARGUMENTS,), lambda e: _swaps_shift_or_power(e.parsed, e.candidate)),
    (RealismRule.EMPTY_PATTERN_SWAP, (BugType.SWAP_ARGUMENTS,),
     lambda e: _swaps_in_an_empty_pattern(e.parsed, e.candidate)),
    (RealismRule.BROKEN_CHAIN, (BugType.WRONG_COMPARISON,), lambda e: _breaks_a_chain(e.tree)),
    (RealismRule.ODD_SENTINEL, (BugType.OFF_BY_ONE,), lambda e: _shifted_literal(e.parsed, e.candidate) == (-1, -2)),
    (RealismRule.WHITESPACE_ONLY, None, lambda e: squash(e.code) == squash(e.parsed.source.text)),
)
"""Every rule, in the order a candidate is checked (it counts under the first it breaks), with the bug
types it applies to (None: all) and its test."""
