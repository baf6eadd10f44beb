"""wrong_operator: an arithmetic, bitwise, boolean or augmented-assignment operator swapped.

``a + b`` -> ``a - b``; ``n & m`` -> ``n | m``; ``x and y`` -> ``x or y``; ``s += k`` -> ``s -= k``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .source import Parsed, TreeEdit, resolve, set_field
from .source import Path as SitePath

BUG_TYPE = BugType.WRONG_OPERATOR

SYMBOL: dict[type[ast.AST], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.And: "and",
    ast.Or: "or",
}
SWAPS: dict[type[ast.AST], tuple[type[ast.AST], ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Add, ast.FloorDiv),
    ast.Div: (ast.FloorDiv, ast.Mult),
    ast.FloorDiv: (ast.Div, ast.Mod),
    ast.Mod: (ast.FloorDiv,),
    ast.Pow: (ast.Mult,),
    ast.LShift: (ast.RShift,),
    ast.RShift: (ast.LShift,),
    ast.BitAnd: (ast.BitOr, ast.BitXor),
    ast.BitOr: (ast.BitAnd, ast.BitXor),
    ast.BitXor: (ast.BitOr, ast.BitAnd),
    ast.And: (ast.Or,),
    ast.Or: (ast.And,),
}


def propose(parsed: Parsed) -> Iterator[Candidate]:
    src = parsed.source
    for site in parsed.sites:
        node = site.node
        if isinstance(node, ast.BinOp):
            gaps = [(src.span(node.left)[1], src.span(node.right)[0], "")]
        elif isinstance(node, ast.AugAssign):
            gaps = [(src.span(node.target)[1], src.span(node.value)[0], "=")]
        elif isinstance(node, ast.BoolOp):
            gaps = [(src.span(a)[1], src.span(b)[0], "") for a, b in zip(node.values, node.values[1:])]
        else:
            continue
        op_type = type(node.op)
        for gap_index, (left_end, right_start, suffix) in enumerate(gaps):
            span = src.operator_between(left_end, right_start)
            if span is None or src.segment(span) != SYMBOL.get(op_type, "\0") + suffix:
                continue
            for new_op in SWAPS.get(op_type, ()):
                if isinstance(node, ast.BoolOp):
                    expect = _bool_edit(site.path, gap_index, new_op)
                else:
                    expect = set_field(site.path, "op", lambda _n, o=new_op: o())
                yield Candidate(BUG_TYPE, span, SYMBOL[new_op] + suffix, site.path, expect)


def _bool_edit(path: SitePath, gap_index: int, new_op: type[ast.AST]) -> TreeEdit:
    """``a and b and c`` with the second ``and`` swapped is ``(a and b) or c``-shaped: rebuild it."""

    def edit(tree: ast.Module) -> None:
        parent_path, (name, index) = path[:-1], path[-1]
        parent = resolve(tree, parent_path)
        old = resolve(tree, path)
        values = old.values
        left = values[: gap_index + 1]
        right = values[gap_index + 1 :]
        old_op = type(old.op)

        def join(parts):
            return parts[0] if len(parts) == 1 else ast.BoolOp(op=old_op(), values=parts)

        if new_op is ast.Or:  # ``and`` binds tighter: the new ``or`` splits the chain
            new = ast.BoolOp(op=ast.Or(), values=[join(left), join(right)])
        else:  # a new ``and`` binds the operands on either side of it first
            new = ast.BoolOp(op=ast.And(), values=[left[-1], right[0]])
            parts = left[:-1] + [new] + right[1:]
            new = parts[0] if len(parts) == 1 else ast.BoolOp(op=old_op(), values=parts)
        if index is None:
            setattr(parent, name, new)
        else:
            getattr(parent, name)[index] = new

    return edit
