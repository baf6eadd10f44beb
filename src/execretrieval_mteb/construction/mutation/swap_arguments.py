"""swap_arguments: two adjacent positional call arguments, or a non-commutative operator's operands, swapped.

``divmod(a, b)`` -> ``divmod(b, a)``; ``hi - lo`` -> ``lo - hi``. Calls whose arguments commute
(``max``, ``min``, ``math.gcd`` ...) are skipped: swapping them cannot change behaviour.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .source import Parsed, Span, resolve

BUG_TYPE = BugType.SWAP_ARGUMENTS
NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
COMMUTATIVE_CALLS = frozenset({"max", "min", "gcd", "lcm", "hypot", "dist", "isclose", "print"})


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _swap_text(parsed: Parsed, first: Span, second: Span) -> str:
    text = parsed.source.text
    return text[second[0] : second[1]] + text[first[1] : second[0]] + text[first[0] : first[1]]


def propose(parsed: Parsed) -> Iterator[Candidate]:
    src = parsed.source
    for site in parsed.sites:
        node = site.node
        if isinstance(node, ast.BinOp) and isinstance(node.op, NON_COMMUTATIVE):
            bounds = src.span(node)
            left = src.with_parens(src.span(node.left), bounds)
            right = src.with_parens(src.span(node.right), bounds)
            if src.segment(left) == src.segment(right):
                continue
            yield Candidate(
                BUG_TYPE, (left[0], right[1]), _swap_text(parsed, left, right), site.path, _swap_binop(site.path)
            )
        elif isinstance(node, ast.Call) and _call_name(node) not in COMMUTATIVE_CALLS:
            bounds = src.span(node)
            for index, (a, b) in enumerate(zip(node.args, node.args[1:])):
                if isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
                    continue
                first = src.with_parens(src.span(a), bounds)
                second = src.with_parens(src.span(b), bounds)
                if src.segment(first) == src.segment(second):
                    continue
                yield Candidate(
                    BUG_TYPE,
                    (first[0], second[1]),
                    _swap_text(parsed, first, second),
                    site.path,
                    _swap_args(site.path, index),
                )


def _swap_binop(path):
    def edit(tree: ast.Module) -> None:
        node = resolve(tree, path)
        node.left, node.right = node.right, node.left

    return edit


def _swap_args(path, index: int):
    def edit(tree: ast.Module) -> None:
        args = resolve(tree, path).args
        args[index], args[index + 1] = args[index + 1], args[index]

    return edit
