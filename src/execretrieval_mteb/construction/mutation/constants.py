"""Integer literals and where they sit: a bound (comparison, ``range``, slice) or elsewhere.

Shared by ``off_by_one`` (literals elsewhere, plain indices) and ``off_by_one_boundary``
(bounds). A literal counts as a bound when it reaches a comparison operand, one of the first two
``range`` arguments or a slice's lower/upper bound through ``+``/``-`` arithmetic only, as in
``i < n - 1`` or ``range(1, n + 1)``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from ...dataset.schema import BugType
from .candidate import Candidate
from .source import Parsed, Path, Site, Span, int_literal, literal_node, replace_node, shifted


@dataclass(frozen=True)
class IntLiteral:
    """An integer literal (``-1`` counts as one literal) with its value and span."""

    site: Site
    value: int
    span: Span
    text: str


def int_literals(parsed: Parsed) -> Iterator[IntLiteral]:
    for site in parsed.sites:
        node = site.node
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_int(node.operand):
            span = parsed.source.span(node)
            yield IntLiteral(site, -node.operand.value, span, parsed.source.segment(parsed.source.span(node.operand)))
        elif _is_int(node):
            parent = parsed.parent(site)
            if parent is not None and isinstance(parent.node, ast.UnaryOp) and isinstance(parent.node.op, ast.USub):
                continue  # handled as the negative literal above
            span = parsed.source.span(node)
            yield IntLiteral(site, node.value, span, parsed.source.segment(span))


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def is_range_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def is_bound_position(parsed: Parsed, site: Site) -> bool:
    """True when ``site`` is (directly) a comparison operand, a range start/stop or a slice bound."""
    parent = parsed.parent(site)
    if parent is None:
        return False
    field, index = site.path[-1]
    if isinstance(parent.node, ast.Compare):
        return True
    if isinstance(parent.node, ast.Slice):
        return field in ("lower", "upper")
    return is_range_call(parent.node) and field == "args" and index is not None and index < 2


def in_bound(parsed: Parsed, site: Site) -> bool:
    """True when ``site`` reaches a bound position through ``+``, ``-`` and unary minus only."""
    current: Site | None = site
    while current is not None:
        if is_bound_position(parsed, current):
            return True
        parent = parsed.parent(current)
        if parent is None:
            return False
        node = parent.node
        additive = isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
        negation = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        if not (additive or negation):
            return False
        current = parent
    return False


def shifted_int_literals(parsed: Parsed, bug_type: BugType, *, in_bounds: bool) -> Iterator[Candidate]:
    """Each integer literal +1 and -1: those in bound positions (comparisons, range/slice bounds)
    when ``in_bounds``, the others otherwise; the split is what separates off_by_one_boundary
    from off_by_one."""
    for lit in int_literals(parsed):
        if in_bound(parsed, lit.site) != in_bounds:
            continue
        for delta in (1, -1):
            value = lit.value + delta
            yield Candidate(
                bug_type,
                lit.span,
                int_literal(value, lit.text),
                lit.site.path,
                replace_node(lit.site.path, lambda _old, v=value: literal_node(v)),
            )


def shifted_expression(parsed: Parsed, node: ast.AST, path: Path, bug_type: BugType) -> Iterator[Candidate]:
    """``expr`` -> ``expr + 1`` and ``expr - 1``; the caller has checked that appending binds as intended."""
    start, end = parsed.source.span(node)
    text = parsed.source.segment((start, end))
    for delta, suffix in ((1, " + 1"), (-1, " - 1")):
        yield Candidate(bug_type, (start, end), text + suffix, path, replace_node(path, lambda old, d=delta: shifted(old, d)))
