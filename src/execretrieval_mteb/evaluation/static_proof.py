"""Deciding, without running it, that a snippet fails a query's tests: it never binds the target.

Almost every (query, snippet) pair in a model's top k pairs a query with a snippet of *another*
task, which defines some other function. Running such a pair only to watch every test raise
``NameError`` costs most of an evaluation's time. A pair is decided statically, as failing, only
on a proof that holds for any execution:

1. The target is not a builtin, so the name is unbound unless the snippet binds it.
2. The snippet's text never contains the target name as a word (not as an identifier, an
   attribute, an import alias, a parameter, nor inside any string), so no ``def``, assignment,
   ``import ... as``, ``global``, attribute store or string-keyed binding can name it.
3. The snippet uses none of the dynamic routes that could bind a name it never spells out:
   ``exec``/``eval``/``compile``, ``globals``/``locals``/``vars``, ``setattr``/``getattr``/
   ``delattr``, ``__import__``/``importlib``, ``builtins``/``__builtins__``, ``sys``, ``__main__``,
   ``__dict__``, ``__setattr__``, ``__getattribute__``, ``__globals__``, ``__code__``, ``inspect``,
   ``ctypes``, ``gc``, ``types``, or a star import (each as a word: a snippet merely mentioning one
   is run instead).
4. Some test certainly looks the name up before anything else it evaluates could bind it:
   ``assert target(...) <op> ...``, ``assert target(...)``, ``assert not target(...)``, or a
   ``with pytest.raises(E):`` block whose body's first statement is ``target(...)``, where ``E``
   is a builtin exception class (or a tuple of them) none of which is ``NameError`` or one of
   its bases (``Exception``, ``BaseException``), so the ``NameError`` escapes the block. Python
   evaluates the callee before the arguments and the left operand first, so that test raises
   ``NameError``.

Then at least one test fails, so the pair does not pass all tests. Anything else is run.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from functools import lru_cache

DYNAMIC_NAMES: tuple[str, ...] = (
    "exec", "eval", "compile", "globals", "locals", "vars", "setattr", "getattr", "delattr",
    "__import__", "importlib", "builtins", "__builtins__", "sys", "__main__", "__dict__", "__setattr__",
    "__getattribute__", "__globals__", "__code__", "inspect", "ctypes", "gc", "types",
)
_DYNAMIC = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in DYNAMIC_NAMES) + r")\b|\bimport\s*\*")


def proves_unbound(code: str, tests: Sequence[str]) -> bool:
    """True when running ``code`` against ``tests`` certainly fails: some test first looks up a
    name (the target) that ``code`` never binds."""
    if _uses_dynamic_binding(code):
        return False
    for test in tests:
        name = _first_lookup(test)
        if name is not None and not hasattr(builtins, name) and not re.search(rf"\b{re.escape(name)}\b", code):
            return True
    return False


@lru_cache(maxsize=65536)
def _uses_dynamic_binding(code: str) -> bool:
    return _DYNAMIC.search(code) is not None


@lru_cache(maxsize=65536)
def _first_lookup(test: str) -> str | None:
    """The function name a test certainly looks up before evaluating anything else, if it has that shape."""
    try:
        module = ast.parse(test)
    except SyntaxError:
        return None
    if len(module.body) != 1:
        return None
    statement = module.body[0]
    expr: ast.expr | None = None
    if isinstance(statement, ast.Assert):
        expr = statement.test
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            expr = expr.operand
        if isinstance(expr, ast.Compare):
            expr = expr.left
    elif isinstance(statement, ast.With) and len(statement.items) == 1 and statement.body:
        first = statement.body[0]
        if _raises_without_name_error(statement.items[0].context_expr) and isinstance(first, ast.Expr):
            expr = first.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return expr.func.id
    return None


def _raises_without_name_error(expr: ast.expr) -> bool:
    """``pytest.raises(E)`` with builtin exception classes that do not catch ``NameError``."""
    if not (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "raises"
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "pytest" and expr.args
    ):
        return False
    expected = expr.args[0]
    names = expected.elts if isinstance(expected, ast.Tuple) else [expected]
    for name in names:
        cls = getattr(builtins, name.id, None) if isinstance(name, ast.Name) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or issubclass(NameError, cls):
            return False
    return True
