"""remove_edge_case_check: a guard ``if`` (no ``else``) whose body returns, raises, continues or breaks, removed.

The whole statement goes, lines and all, so the mutant is the canonical minus those lines.
A guard that is the only statement of its block is kept (removing it would leave no body).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...dataset.schema import BugType
from .candidate import Candidate
from .source import Parsed, resolve

BUG_TYPE = BugType.REMOVE_EDGE_CASE_CHECK
EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def propose(parsed: Parsed) -> Iterator[Candidate]:
    src = parsed.source
    for site in parsed.sites:
        node = site.node
        if not (isinstance(node, ast.If) and not node.orelse and isinstance(node.body[-1], EXITS)):
            continue
        parent = parsed.parent(site)
        field, index = site.path[-1]
        if parent is None or index is None or len(getattr(parent.node, field)) < 2:
            continue
        start, end = src.span(node)
        line_start = src.line_starts[node.lineno - 1]
        line_end = src.line_starts[node.end_lineno] if node.end_lineno < len(src.line_starts) else len(src.text)
        if src.text[line_start:start].strip() or src.text[end:line_end].strip():
            continue  # shares a line with other code (``x = 1; if ...``): no clean line removal
        yield Candidate(BUG_TYPE, (line_start, line_end), "", site.path, _remove(site.path))


def _remove(path):
    def edit(tree: ast.Module) -> None:
        parent = resolve(tree, path[:-1])
        field, index = path[-1]
        del getattr(parent, field)[index]

    return edit
