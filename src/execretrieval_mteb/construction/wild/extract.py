"""Cut the top-level functions out of one Python source file, each a snippet that stands alone.

A function is kept when all of these hold (``Rejection`` names the first that fails):

- the file decodes (its PEP 263 coding) and parses with the sandbox interpreter's grammar
  (``ast.parse`` with ``feature_version`` its major.minor; ``Grammar`` carries it, probed from the
  sandbox's own ``/usr/bin/python3``, with its builtins and standard-library module names);
- it is a ``def`` at module level, not an ``async def`` (a coroutine is no answer to a test);
- its snippet spans 3-60 lines: from its first decorator (or ``def``) to its last line;
- that snippet, cut out alone (the file's line ends made ``\\n``), parses again.

The snippet is the function's source as written, decorators, comments and docstring kept. What it
needs from its module is recorded, not filtered: ``free_names`` are the names it (or anything
nested in it) reads that are neither its own (parameter, local, closure), nor builtins of the
sandbox's Python, nor its own name; ``closed`` is true when there are none, it declares no
``global``, and it imports only standard-library modules, absolutely: such a function can run
alone. The others are real code too, and execution judges them like any snippet (a missing
module-level helper is a ``NameError`` at call time).
"""

from __future__ import annotations

import ast
import builtins
import enum
import io
import symtable
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

MIN_LINES, MAX_LINES = 3, 60
BUILTIN_NAMES = frozenset(dir(builtins))
STDLIB_MODULES = frozenset(sys.stdlib_module_names)


class Rejection(enum.Enum):
    ASYNC = "async"
    LENGTH = "length"
    UNPARSABLE = "unparsable"


@dataclass(frozen=True)
class Function:
    name: str
    line: int
    """Line of ``def`` in the file (1-based)."""
    code: str
    free_names: tuple[str, ...]
    closed: bool


def decode(data: bytes) -> str | None:
    """The file's text by its declared coding (UTF-8 by default), or None if it does not decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


@dataclass(frozen=True)
class Grammar:
    """What the sandbox's Python accepts: its (major, minor), builtin names and standard-library modules."""

    version: tuple[int, int] = sys.version_info[:2]
    builtins: frozenset[str] = BUILTIN_NAMES
    stdlib: frozenset[str] = STDLIB_MODULES


def functions(text: str, grammar: Grammar = Grammar(), filename: str = "<wild>") -> Iterator[Function | Rejection]:
    """Every top-level function of ``text``: kept ones as ``Function``, the others as why not.

    A file that does not parse yields one ``Rejection.UNPARSABLE`` and nothing else.
    """
    try:
        tree = ast.parse(text, filename, feature_version=grammar.version)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        yield Rejection.UNPARSABLE
        return
    lines = text.split("\n")
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef):
            yield Rejection.ASYNC
        elif isinstance(node, ast.FunctionDef):
            yield _judge(node, lines, grammar)


def _judge(node: ast.FunctionDef, lines: list[str], grammar: Grammar) -> Function | Rejection:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    if not MIN_LINES <= end - first + 1 <= MAX_LINES:
        return Rejection.LENGTH
    code = "\n".join(lines[first - 1:end]).rstrip() + "\n"
    try:
        free = global_reads(code)
    except (SyntaxError, ValueError, RecursionError):
        return Rejection.UNPARSABLE
    free_names = tuple(sorted(n for n in free if n not in grammar.builtins and n != node.name))
    return Function(node.name, node.lineno, code, free_names, not free_names and _only_stdlib(node, grammar))


def _only_stdlib(node: ast.FunctionDef, grammar: Grammar) -> bool:
    """No ``global`` statement, and every import absolute and of a standard-library module."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Global):
            return False
        if isinstance(inner, ast.ImportFrom) and (inner.level or (inner.module or "").split(".")[0] not in grammar.stdlib):
            return False
        if isinstance(inner, ast.Import) and any(a.name.split(".")[0] not in grammar.stdlib for a in inner.names):
            return False
    return True


def global_reads(code: str) -> set[str]:
    """Names the module-level function in ``code`` resolves globally: in its body (and anything nested in
    it), its decorators, default values and annotations."""
    table = symtable.symtable(code, "<wild>", "exec")
    # decorators, default values and annotations are evaluated in the module's scope, at definition
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    stack = list(table.get_children())
    while stack:
        scope = stack.pop()
        for symbol in scope.get_symbols():
            if symbol.is_global():
                names.add(symbol.get_name())
        stack.extend(scope.get_children())
    return names
