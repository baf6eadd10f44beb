"""Deciding, without running it, that a snippet fails a query's tests: it never binds the target.

Almost every (query, snippet) pair in a model's top k pairs a query with a snippet of *another*
task, which defines some other function. Running such a pair only to watch every test raise
``NameError`` costs most of an evaluation's time. A pair is decided statically, as failing, only
on a proof that holds for any execution in the oracle (which runs, per test, the snippet then the
test in one fresh namespace, tests in order, in one process per suite):

1. The snippet is *capability-free*, checked on its syntax tree (``capability_free``): it loads
   no builtin outside ``ALLOWED_BUILTINS`` (so no ``exec``, ``eval``, ``compile``, ``globals``,
   ``vars``, ``getattr``, ``setattr``, ``open``, ``__import__``, ``__loader__``, ...); imports only
   the modules in ``WHOLE_MODULES`` or the names in ``NAMED_IMPORTS`` (no star import, no
   relative import); reads or writes no attribute whose name starts with ``_``, starts like a
   frame, generator, traceback or code attribute (``f_``, ``gi_``, ``cr_``, ``ag_``, ``tb_``,
   ``co_``), or is in ``FORBIDDEN_ATTRIBUTES`` (the names under which the allowed modules expose
   other modules, such as ``re.functools`` or ``calendar.sys``, and the dangerous builtins'
   names); and uses no dunder name outside a method definition (no ``__builtins__``). Such code
   can reach no ``exec``/``eval``, no namespace dictionary, no frame, no builtins module and no
   attribute access by computed name, so the only way it can bind a name is to spell it.
2. The snippet never spells the target: it is none of the syntax tree's identifiers (which
   Python has already NFKC-normalised, so ``ｔａｒｇｅｔ`` counts as ``target``) and not a word
   of its text, comments and strings included. By 1 and 2, the snippet never binds the target.
3. The target is not a builtin (of the evaluating interpreter; the sandbox runs the same
   Python line), so the name is unbound unless something binds it.
4. Tests run in order; some test certainly looks the target up before anything else it
   evaluates could bind it: ``assert target(...) <op> ...``, ``assert target(...)``, ``assert
   not target(...)`` (Python evaluates the callee first and the left operand first), or a ``with
   pytest.raises(E):`` block whose body starts with ``target(...)``, where ``E`` is a builtin
   exception class (or a tuple of them) none of which is ``NameError`` or one of its bases, and
   the only keyword arguments are constants, so the ``NameError`` escapes the block. For the
   ``pytest.raises`` form the snippet must not bind ``pytest`` or any name of ``E`` and must not
   assign an attribute named ``raises`` (the only way to replace the shim's ``raises``).
5. Every test before that one is capability-free too (so it cannot add the target to the
   builtins the later tests share), and before a ``pytest.raises`` test none assigns an
   attribute named ``raises``.

Then that test raises ``NameError``, so the pair does not pass all tests. Anything else is run.
``tests/evaluation/test_static_proof.py`` runs the counterexamples that defeated earlier, looser
rules through the oracle, and checks the allowed modules' public attributes on both the
evaluating and the sandbox interpreter.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

ALLOWED_BUILTINS: frozenset[str] = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "classmethod",
    "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id",
    "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct",
    "ord", "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "staticmethod", "str", "sum", "super", "tuple", "type", "zip", "NotImplemented", "Ellipsis",
}) | frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and not name.startswith("_")
)
"""Builtins a capability-free snippet may use: none evaluates code or touches a namespace."""

WHOLE_MODULES: frozenset[str] = frozenset({
    "bisect", "calendar", "cmath", "collections", "collections.abc", "datetime", "decimal", "fractions",
    "heapq", "itertools", "math", "re", "struct", "time", "unicodedata",
})
"""Modules a capability-free snippet may import whole (``import m``, ``from m import x``)."""

NAMED_IMPORTS: Mapping[str, frozenset[str]] = {
    "__future__": frozenset({"annotations"}),
    "functools": frozenset({"cache", "cached_property", "cmp_to_key", "lru_cache", "partial", "reduce",
                            "total_ordering", "wraps"}),
    "operator": frozenset({"add", "and_", "eq", "floordiv", "ge", "gt", "itemgetter", "le", "lt", "mod", "mul",
                           "ne", "neg", "or_", "pos", "sub", "truediv", "xor"}),
    "string": frozenset({"ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
                         "octdigits", "printable", "punctuation", "whitespace"}),
    "typing": frozenset({"Any", "Callable", "DefaultDict", "Deque", "Dict", "FrozenSet", "Iterable", "Iterator",
                         "List", "Mapping", "Optional", "Sequence", "Set", "Tuple", "Union"}),
}
"""Modules with a dangerous member (``functools.singledispatch`` evaluates string annotations,
``operator.attrgetter`` reads attributes by computed name, ``string.Formatter`` too, ``typing``
has ``get_type_hints``): only these names may be imported from them."""

FRAME_PREFIXES: tuple[str, ...] = ("f_", "gi_", "cr_", "ag_", "tb_", "co_")
"""Attributes of frames, generators, coroutines, tracebacks and code objects."""

_WHOLE_NAMES = frozenset(m.rsplit(".", 1)[-1] for m in WHOLE_MODULES)
_RAISES = "raises"
_TYPE_PARAMS = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})  # ast nodes of Python 3.12+


def _module_aliases() -> frozenset[str]:
    """Public attribute names under which the allowed modules expose a module outside ``WHOLE_MODULES``."""
    found: set[str] = set()
    for name in sorted(WHOLE_MODULES):
        module = __import__(name, fromlist=["_"])
        for attr, value in vars(module).items():
            if not attr.startswith("_") and isinstance(value, types.ModuleType) and value.__name__ not in WHOLE_MODULES:
                found.add(attr)
    return frozenset(found)


FORBIDDEN_ATTRIBUTES: frozenset[str] = (
    frozenset(n for n in sys.stdlib_module_names if n not in _WHOLE_NAMES and not n.startswith("_")) - {"copy"}
) | _module_aliases() | frozenset(
    n for n in dir(builtins) if n not in ALLOWED_BUILTINS and not n.startswith("_") and n != "compile"
) | frozenset({"attrgetter", "methodcaller", "Formatter", "get_type_hints", "singledispatch", "modules"})
"""Attribute names a capability-free snippet may not use: standard-library module names (the
allowed modules' own excepted; ``copy`` too, a common method and no module of the allowed ones),
the allowed modules' module aliases, dangerous builtins' names (``x.exec``, ``x.setattr``: a
builtins module reached under another name; ``compile`` stays, for ``re.compile``) and a few
computed-access helpers."""


def proves_unbound(code: str, tests: Sequence[str]) -> bool:
    """True when running ``code`` against ``tests`` certainly fails: a test first looks up a
    name (the target) that ``code`` never binds (see the module docstring for the argument)."""
    facts = _facts(code)
    if facts is None:
        return False
    replaced_raises = _RAISES in facts.stored_attributes
    for test in tests:
        lookup = _first_lookup(test)
        if lookup is not None:
            name, guards = lookup
            if (
                not hasattr(builtins, name) and not _dunder(name) and name not in facts.identifiers
                and not (guards & facts.bound) and not (guards and replaced_raises)
                and not re.search(rf"\b{re.escape(name)}\b", code)
            ):
                return True
        ran = _facts(test)
        if ran is None:
            return False
        replaced_raises |= _RAISES in ran.stored_attributes
    return False


@dataclass(frozen=True)
class _Facts:
    """What the proof needs of a capability-free piece of code."""

    identifiers: frozenset[str]
    """Every identifier in its syntax tree (names, attributes, parameters, imports), NFKC-normalised."""
    bound: frozenset[str]
    """The names it binds or deletes (assignment, ``def``, ``class``, import, parameter, ``global``, ...)."""
    stored_attributes: frozenset[str]
    """The attribute names it assigns or deletes."""


@lru_cache(maxsize=65536)
def _facts(source: str) -> _Facts | None:
    """Identifiers of ``source`` if it parses and is capability-free, else None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    if not capability_free(tree):
        return None
    stored = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)}
    return _Facts(identifiers=frozenset(_identifiers(tree)), bound=frozenset(_bound(tree)),
                  stored_attributes=frozenset(stored))


def capability_free(tree: ast.AST) -> bool:
    """Rule 1 of the module docstring: no route to code evaluation, namespaces or computed names."""
    methods = {
        id(statement) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
        for statement in node.body if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(alias.name not in WHOLE_MODULES for alias in node.names):
                return False
        elif isinstance(node, ast.ImportFrom):
            if node.level or not all(_importable(node.module or "", alias.name) for alias in node.names):
                return False
        elif isinstance(node, ast.Attribute):
            if not _attribute_allowed(node.attr):
                return False
        elif isinstance(node, ast.Name):
            if _dunder(node.id) or (hasattr(builtins, node.id) and node.id not in ALLOWED_BUILTINS):
                return False
        elif isinstance(node, ast.MatchClass):
            if not all(_attribute_allowed(a) for a in node.kwd_attrs):
                return False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) in methods:
            continue  # __init__, __eq__, ... of a class
        if any(_dunder(name) for name in _own_identifiers(node)):
            return False
    return True


def _importable(module: str, name: str) -> bool:
    if module in WHOLE_MODULES:
        return name != "*" and _attribute_allowed(name)
    return name in NAMED_IMPORTS.get(module, frozenset())


def _attribute_allowed(attr: str) -> bool:
    return not attr.startswith("_") and not attr.startswith(FRAME_PREFIXES) and attr not in FORBIDDEN_ATTRIBUTES


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _own_identifiers(node: ast.AST) -> list[str]:
    """The identifiers a node itself carries (not its children's), dotted import names split."""
    if isinstance(node, ast.Constant):
        return []
    found: list[str] = []
    for value in vars(node).values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                found.extend(item.split("."))
    return found


def _identifiers(tree: ast.AST) -> set[str]:
    return {name for node in ast.walk(tree) for name in _own_identifiers(node)}


def _bound(tree: ast.AST) -> set[str]:
    """Every name bound or deleted anywhere in ``tree`` (any scope: a superset of the module's)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.MatchMapping):
            found.update([node.rest] if node.rest else [])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler,
                               ast.MatchAs, ast.MatchStar)) or type(node).__name__ in _TYPE_PARAMS:
            found.update([node.name] if getattr(node, "name", None) else [])
    return found


@lru_cache(maxsize=65536)
def _first_lookup(test: str) -> tuple[str, frozenset[str]] | None:
    """The function name a test certainly looks up before evaluating anything else, if it has one
    of the shapes of rule 4, with the names the snippet must not mention for it to hold."""
    try:
        module = ast.parse(test)
    except (SyntaxError, ValueError):
        return None
    if len(module.body) != 1:
        return None
    statement = module.body[0]
    expr: ast.expr | None = None
    guards: frozenset[str] = frozenset()
    if isinstance(statement, ast.Assert):
        expr = statement.test
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            expr = expr.operand
        if isinstance(expr, ast.Compare):
            expr = expr.left
    elif isinstance(statement, ast.With) and len(statement.items) == 1 and statement.body:
        first = statement.body[0]
        expected = _raises_without_name_error(statement.items[0].context_expr)
        if expected is not None and isinstance(first, ast.Expr):
            expr = first.value
            guards = frozenset({"pytest", "raises"}) | expected
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return expr.func.id, guards
    return None


def _raises_without_name_error(expr: ast.expr) -> frozenset[str] | None:
    """``pytest.raises(E)`` with builtin exception classes that do not catch ``NameError`` (and
    only constant keyword arguments): the names in ``E``; else None."""
    if not (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "raises"
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "pytest" and len(expr.args) == 1
        and all(isinstance(k.value, ast.Constant) for k in expr.keywords)
    ):
        return None
    expected = expr.args[0]
    names = expected.elts if isinstance(expected, ast.Tuple) else [expected]
    found: set[str] = set()
    for name in names:
        cls = getattr(builtins, name.id, None) if isinstance(name, ast.Name) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or issubclass(NameError, cls):
            return None
        found.add(name.id)  # type: ignore[union-attr]
    return frozenset(found)
