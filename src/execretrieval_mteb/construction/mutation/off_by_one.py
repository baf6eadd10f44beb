"""off_by_one: an integer literal (outside bounds) or a plain index shifted by one.

``x = 0`` -> ``x = 1``; ``a[i]`` -> ``a[i + 1]``; ``n % 10`` -> ``n % 11``. Literals in
comparisons, ``range`` bounds and slice bounds belong to ``off_by_one_boundary``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .constants import in_bound, int_literals
from .source import Parsed, int_literal, literal_node, replace_node, shifted

BUG_TYPE = BugType.OFF_BY_ONE
APPENDABLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def propose(parsed: Parsed) -> Iterator[Candidate]:
    for lit in int_literals(parsed):
        if in_bound(parsed, lit.site):
            continue
        for delta in (1, -1):
            value = lit.value + delta
            yield Candidate(
                BUG_TYPE,
                lit.span,
                int_literal(value, lit.text),
                lit.site.path,
                replace_node(lit.site.path, lambda _old, v=value: literal_node(v)),
            )
    for site in parsed.sites:
        node = site.node
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, APPENDABLE)
            and not isinstance(node.slice, ast.Constant)
        ):
            path = site.path + (("slice", None),)
            start, end = parsed.source.span(node.slice)
            text = parsed.source.segment((start, end))
            for delta, suffix in ((1, " + 1"), (-1, " - 1")):
                yield Candidate(
                    BUG_TYPE,
                    (start, end),
                    text + suffix,
                    path,
                    replace_node(path, lambda old, d=delta: shifted(old, d)),
                )
