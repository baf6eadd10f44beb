"""The static proof that a snippet fails a query's tests because it never binds the target."""

from __future__ import annotations

import pytest

from execretrieval_mteb.evaluation.static_proof import proves_unbound

TESTS = ["assert target(1) == 2", "with pytest.raises(ValueError):\n    target(-1)"]


@pytest.mark.parametrize("code", [
    "def other(x):\n    return x + 1\n",
    "import math\n\ndef other(x):\n    return math.floor(x)\n",
    "class Other:\n    pass\n",
])
def test_snippets_that_never_name_the_target_are_proven(code: str) -> None:
    assert proves_unbound(code, TESTS)


@pytest.mark.parametrize("code", [
    "def target(x):\n    return x\n",                      # defines it
    "target = lambda x: x\n",                               # assigns it
    "from math import floor as target\n",                   # imports it
    "def other():\n    pass\n# target\n",                   # names it anywhere, even in a comment
    "name = 'tar' + 'get'\nglobals()[name] = len\n",        # binds it dynamically
    "import builtins\nsetattr(builtins, 'tar' + 'get', len)\n",
    "exec('tar' + 'get = len')\n",
    "from os.path import *\n",                              # a star import could bind anything
    "import sys\nsys.modules[__name__].__dict__['tar' + 'get'] = len\n",
])
def test_anything_that_could_bind_the_target_is_run(code: str) -> None:
    assert not proves_unbound(code, TESTS)


@pytest.mark.parametrize("tests", [
    ["with pytest.raises(Exception):\n    target(1)"],      # would catch the NameError
    ["with pytest.raises(NameError):\n    target(1)"],
    ["with pytest.raises((ValueError, BaseException)):\n    target(1)"],
    ["with pytest.raises(MyError):\n    target(1)"],        # not a builtin: could be anything
    ["assert other(1) or target(1)"],                       # the target is not looked up first
    ["x = target"],                                         # not an assert
])
def test_tests_that_might_not_fail_do_not_prove_it(tests: list[str]) -> None:
    assert not proves_unbound("def other(x):\n    return x\n", tests)


def test_a_builtin_target_is_never_proven_unbound() -> None:
    assert not proves_unbound("def other(x):\n    return x\n", ["assert len([1]) == 1"])


# Snippets that bind the target without spelling it, or suites a snippet can make pass without
# binding it. Each passes every test in the real oracle; looser rules proved every one of them unbound.
ASSERTS = ["assert target(1) == 2", "assert target(5) == 6"]
RAISES = ["with pytest.raises(ValueError):\n    target(-1)"]
COUNTEREXAMPLES = {
    "fullwidth identifier (NFKC)": ("def \uff54\uff41\uff52\uff47\uff45\uff54(x):\n    return x + 1\n", ASSERTS),
    "mathematical bold identifier (NFKC)": (
        "def \U0001d42d\U0001d41a\U0001d42b\U0001d420\U0001d41e\U0001d42d(x):\n    return x + 1\n", ASSERTS),
    "generator frame globals": ("g = (i for i in ())\ng.gi_frame.f_globals['tar' + 'get'] = lambda x: x + 1\n", ASSERTS),
    "private module attribute": (
        "import collections\ncollections._sys._getframe(0).f_globals['tar' + 'get'] = lambda x: x + 1\n", ASSERTS),
    "__loader__ builtin": (
        "s = __loader__.load_module('s' + 'ys')\ns._getframe(0).f_globals['tar' + 'get'] = lambda x: x + 1\n", ASSERTS),
    "builtins via print.__self__": (
        "import operator\noperator.methodcaller('_' + '_setattr__', 'tar' + 'get', lambda x: x + 1)(print.__self__)\n",
        ASSERTS),
    "string annotation evaluated by typing": (
        "import typing\ndef f(x: '(tar' 'get := lambda y: y + 1)'):\n    pass\ntyping.get_type_hints(f)\n", ASSERTS),
    "traceback frame": (
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    e.__traceback__.tb_frame.f_globals['tar' + 'get'] = lambda x: x + 1\n", ASSERTS),
    "rebinds the expected exception": ("ValueError = NameError\n", RAISES),
    "rebinds pytest": (
        "class _R:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\n"
        "class pytest:\n    raises = staticmethod(lambda *a, **k: _R())\n", RAISES),
    "replaces the shim's raises": (
        "class _R:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\n"
        "pytest.raises = lambda *a, **k: _R()\n", RAISES),
    "an earlier test binds a builtin": (
        "def other():\n    pass\n", ["import builtins as b; b.target = lambda x: x + 1", "assert target(1) == 2"]),
}


@pytest.fixture(scope="module")
def counterexample_results() -> dict[str, bool]:
    from execretrieval_mteb.oracle.api import run_suites
    from execretrieval_mteb.oracle.outcomes import Suite

    results = run_suites([Suite(code, tuple(tests)) for code, tests in COUNTEREXAMPLES.values()])
    return {name: r.passed for name, r in zip(COUNTEREXAMPLES, results)}


@pytest.mark.parametrize("name", list(COUNTEREXAMPLES))
def test_snippets_that_pass_without_spelling_the_target_are_run(name: str, counterexample_results: dict[str, bool]) -> None:
    code, tests = COUNTEREXAMPLES[name]
    assert counterexample_results[name], "the counterexample no longer passes in the oracle: it proves nothing"
    assert not proves_unbound(code, tests)


def test_a_snippet_that_only_raises_the_expected_exception_is_still_proven() -> None:
    code = "def other(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n"
    assert proves_unbound(code, RAISES)
    assert not proves_unbound(code.replace("def other", "ValueError = KeyError\ndef other"), RAISES)


def test_methods_may_be_dunders_but_module_level_dunders_are_run() -> None:
    method = "class Other:\n    def __init__(self, x):\n        self.x = x\n    def __eq__(self, o):\n        return True\n"
    assert proves_unbound(method, TESTS)
    metaclass = "class M(type):\n    def __getitem__(cls, name):\n        return len\nclass __builtins__(metaclass=M):\n    pass\n"
    assert not proves_unbound(metaclass, TESTS)


def test_tests_before_the_decisive_one_must_be_capability_free_too() -> None:
    code = "def other(x):\n    return x\n"
    assert proves_unbound(code, ["assert other(1) == 1", "assert target(1) == 2"])
    assert not proves_unbound(code, ["exec('x = 1')", "assert target(1) == 2"])
    assert not proves_unbound(code, ["pytest.raises = None", RAISES[0]])


_PUBLIC_MODULES_AND_BUILTINS = r"""
import builtins, json, sys, types
whole, named = json.loads(sys.argv[1]), json.loads(sys.argv[2])
dangerous = {id(getattr(builtins, n)): n for n in ("exec", "eval", "compile", "globals", "locals", "vars",
             "getattr", "setattr", "delattr", "__import__", "open", "breakpoint", "input")}
found = []
def look(where, value):
    if isinstance(value, types.ModuleType) and value.__name__ not in whole:
        found.append([where, "module " + value.__name__])
    elif id(value) in dangerous:
        found.append([where, "builtin " + dangerous[id(value)]])
def public(obj):
    return [(a, v) for a, v in vars(obj).items() if not a.startswith("_")]
for name in whole:
    module = __import__(name, fromlist=["_"])
    for attr, value in public(module):
        look(attr, value)
        if isinstance(value, type):
            for inner, member in public(value):
                look(inner, member)
for name, members in named.items():
    module = __import__(name, fromlist=["_"])
    for member in members:
        value = getattr(module, member)
        for inner, item in (public(value) if isinstance(value, type) else []):
            look(inner, item)
print(json.dumps(found))
"""


def _reachable_modules_and_builtins(python: str) -> list[tuple[str, str]]:
    import json
    import subprocess

    from execretrieval_mteb.evaluation import static_proof

    named = {m: sorted(n) for m, n in static_proof.NAMED_IMPORTS.items()}
    out = subprocess.run([python, "-S", "-c", _PUBLIC_MODULES_AND_BUILTINS, json.dumps(sorted(static_proof.WHOLE_MODULES)),
                          json.dumps(named)], capture_output=True, text=True, check=True, timeout=120).stdout
    return [tuple(item) for item in json.loads(out)]


@pytest.mark.parametrize("which", ["evaluating", "sandbox"])
def test_no_public_attribute_of_an_allowed_module_leads_to_a_module_or_builtin_outside_the_allowlist(which: str) -> None:
    """Rule 1 rests on this: every public attribute (of the allowed modules, their classes and the
    named imports) that holds another module or a dangerous builtin has a forbidden name."""
    import os
    import sys

    from execretrieval_mteb.evaluation.static_proof import FORBIDDEN_ATTRIBUTES
    from execretrieval_mteb.oracle.program import find_interpreter

    python = sys.executable if which == "evaluating" else find_interpreter(world_readable=os.geteuid() == 0).path
    leaks = [(attr, what) for attr, what in _reachable_modules_and_builtins(python) if attr not in FORBIDDEN_ATTRIBUTES]
    assert not leaks, f"{python}: add these attribute names to FORBIDDEN_ATTRIBUTES: {leaks}"
