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
