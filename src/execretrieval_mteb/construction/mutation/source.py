"""Source positions and tree paths shared by the mutation operators.

``ast`` reports columns as UTF-8 byte offsets; splices work on ``str`` character offsets, so
every span here is a character range ``[start, end)`` into the canonical text. A node is named
by its *path* (fields and list indices from the module root) so that the same edit can be
replayed on a copy of the tree: the engine checks that the spliced text parses to exactly that
edited tree.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

Path = tuple[tuple[str, int | None], ...]
Span = tuple[int, int]
TreeEdit = Callable[[ast.Module], None]


class SourceMap:
    """Character offsets of ``ast`` positions in one source text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def offset(self, lineno: int, col_bytes: int) -> int:
        start = self.line_starts[lineno - 1]
        end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.text)
        return start + len(self.text[start:end].encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> Span:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def segment(self, span: Span) -> str:
        return self.text[span[0] : span[1]]

    def line_of(self, offset: int) -> int:
        """1-based line holding character ``offset``."""
        low, high = 0, len(self.line_starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if self.line_starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return low + 1

    def operator_between(self, left_end: int, right_start: int) -> Span | None:
        """Span of the operator token(s) in the gap between two operands, parentheses excluded.

        None when the gap holds a comment or a line continuation (no safe single splice).
        """
        gap = self.text[left_end:right_start]
        if "#" in gap or "\\" in gap:
            return None
        i, j = 0, len(gap)
        while i < j and gap[i] in " \t\r\n)":
            i += 1
        while j > i and gap[j - 1] in " \t\r\n(":
            j -= 1
        return (left_end + i, left_end + j) if i < j else None

    def with_parens(self, span: Span, bounds: Span) -> Span:
        """Grow ``span`` over parentheses that wrap exactly it, staying inside ``bounds``."""
        start, end = span
        while True:
            i, j = start, end
            while i > bounds[0] and self.text[i - 1] in " \t\r\n":
                i -= 1
            while j < bounds[1] and self.text[j] in " \t\r\n":
                j += 1
            if i > bounds[0] and j < bounds[1] and self.text[i - 1] == "(" and self.text[j] == ")":
                start, end = i - 1, j + 1
            else:
                return start, end


@dataclass(frozen=True)
class Site:
    """A node of the canonical's tree with its parent and its path from the root."""

    node: ast.AST
    parent: ast.AST | None
    path: Path


def walk_sites(tree: ast.Module) -> Iterator[Site]:
    """Every node in source order (depth first, fields in ``_fields`` order): deterministic."""

    def visit(node: ast.AST, parent: ast.AST | None, path: Path) -> Iterator[Site]:
        yield Site(node, parent, path)
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        yield from visit(item, node, path + ((name, index),))
            elif isinstance(value, ast.AST):
                yield from visit(value, node, path + ((name, None),))

    yield from visit(tree, None, ())


def resolve(tree: ast.AST, path: Path) -> ast.AST:
    node = tree
    for name, index in path:
        value = getattr(node, name)
        node = value[index] if index is not None else value
    return node


def replace_node(path: Path, make: Callable[[ast.AST], ast.AST]) -> TreeEdit:
    """A tree edit that puts ``make(old)`` where the node at ``path`` was."""

    def edit(tree: ast.Module) -> None:
        parent = resolve(tree, path[:-1])
        name, index = path[-1]
        if index is None:
            setattr(parent, name, make(getattr(parent, name)))
        else:
            getattr(parent, name)[index] = make(getattr(parent, name)[index])

    return edit


def set_field(path: Path, name: str, make: Callable[[ast.AST], object]) -> TreeEdit:
    """A tree edit that sets field ``name`` of the node at ``path`` to ``make(node)``."""

    def edit(tree: ast.Module) -> None:
        node = resolve(tree, path)
        setattr(node, name, make(node))

    return edit


def shifted(node: ast.AST, delta: int) -> ast.AST:
    """``node + 1`` / ``node - 1`` as a tree (a copy of node as the left operand)."""
    return ast.BinOp(left=copy.deepcopy(node), op=ast.Add() if delta > 0 else ast.Sub(), right=ast.Constant(1))


def literal_node(value: int) -> ast.expr:
    """An int literal as the parser builds it: ``-2`` is unary minus applied to ``2``."""
    return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value)) if value < 0 else ast.Constant(value)


def int_literal(value: int, like: str) -> str:
    """``value`` written in the base of the literal ``like`` (``0x1F``, ``0b101``, ``0o7``, ``42``)."""
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    prefix = like.lstrip("-+")[:2].lower()
    if prefix == "0x":
        digits = format(magnitude, "x")
        body = like.lstrip("-+")[:2] + (digits.upper() if any(c in "ABCDEF" for c in like[2:]) else digits)
    elif prefix == "0b":
        body = like.lstrip("-+")[:2] + format(magnitude, "b")
    elif prefix == "0o":
        body = like.lstrip("-+")[:2] + format(magnitude, "o")
    else:
        body = str(magnitude)
    return sign + body


def is_int_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
"""Expressions to which `` + 1`` can be appended without changing how the rest parses."""


@dataclass(frozen=True)
class Parsed:
    """The canonical's text, positions, tree and every node site (what operators propose from)."""

    source: SourceMap
    tree: ast.Module
    sites: tuple[Site, ...]
    by_path: dict[Path, Site]

    @classmethod
    def of(cls, text: str) -> Parsed:
        tree = ast.parse(text)
        sites = tuple(walk_sites(tree))
        return cls(SourceMap(text), tree, sites, {s.path: s for s in sites})

    def parent(self, site: Site) -> Site | None:
        return self.by_path.get(site.path[:-1]) if site.path else None


def same_tree(a: object, b: object) -> bool:
    """Structural equality of two syntax trees (positions ignored; ``1`` differs from ``True`` and ``1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(same_tree(getattr(a, name, None), getattr(b, name, None)) for name in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    return a == b
