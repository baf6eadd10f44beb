"""off_by_one: an integer literal (outside bounds) or a plain index shifted by one.

``x = 0`` -> ``x = 1``; ``a[i]`` -> ``a[i + 1]``; ``n % 10`` -> ``n % 11``. Literals in
comparisons, ``range`` bounds and slice bounds belong to ``off_by_one_boundary``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .constants import shifted_expression, shifted_int_literals
from .source import Parsed

BUG_TYPE = BugType.OFF_BY_ONE
APPENDABLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def propose(parsed: Parsed) -> Iterator[Candidate]:
    yield from shifted_int_literals(parsed, BUG_TYPE, in_bounds=False)
    for site in parsed.sites:
        node = site.node
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, APPENDABLE)
            and not isinstance(node.slice, ast.Constant)
        ):
            yield from shifted_expression(parsed, node.slice, site.path + (("slice", None),), BUG_TYPE)
