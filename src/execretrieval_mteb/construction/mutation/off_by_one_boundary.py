"""off_by_one_boundary: a range/slice bound or a comparison literal shifted by one.

``n < 1`` -> ``n < 2``; ``range(1, n + 1)`` -> ``range(1, n)``; ``s[:k]`` -> ``s[:k + 1]``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .constants import is_bound_position, shifted_expression, shifted_int_literals
from .source import Parsed

BUG_TYPE = BugType.OFF_BY_ONE_BOUNDARY
APPENDABLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
HIGHER_THAN_PLUS = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _appendable(node: ast.AST) -> bool:
    return isinstance(node, APPENDABLE) or (isinstance(node, ast.BinOp) and isinstance(node.op, HIGHER_THAN_PLUS))


def propose(parsed: Parsed) -> Iterator[Candidate]:
    yield from shifted_int_literals(parsed, BUG_TYPE, in_bounds=True)
    for site in parsed.sites:
        parent = parsed.parent(site)
        if parent is None or isinstance(parent.node, ast.Compare) or not is_bound_position(parsed, site):
            continue  # comparisons shift literals only; range/slice bounds also shift expressions
        if not _appendable(site.node):
            continue
        yield from shifted_expression(parsed, site.node, site.path, BUG_TYPE)
