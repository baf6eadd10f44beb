"""wrong_comparison: a comparison operator swapped (``<``/``<=``/``>``/``>=``/``==``/``!=``, ``is``, ``in``).

``n < 1`` -> ``n <= 1``; ``x == y`` -> ``x != y``; ``k in seen`` -> ``k not in seen``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .source import Parsed, resolve

BUG_TYPE = BugType.WRONG_COMPARISON

SYMBOL: dict[type[ast.AST], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
SWAPS: dict[type[ast.AST], tuple[type[ast.AST], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}


def propose(parsed: Parsed) -> Iterator[Candidate]:
    src = parsed.source
    for site in parsed.sites:
        node = site.node
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            span = src.operator_between(src.span(operands[index])[1], src.span(operands[index + 1])[0])
            if span is None or re.sub(r"\s+", " ", src.segment(span)) != SYMBOL[type(op)]:
                continue
            for new_op in SWAPS[type(op)]:
                yield Candidate(BUG_TYPE, span, SYMBOL[new_op], site.path, _edit(site.path, index, new_op))


def _edit(path, index: int, new_op: type[ast.AST]):
    def edit(tree: ast.Module) -> None:
        resolve(tree, path).ops[index] = new_op()

    return edit
