"""Agreement of two implementations on a task's generated valid inputs, as oracle suites.

It lives with the oracle because two stages ask it: the build (the validation-only check of each
task and its mutants) and the open pool's strong judge (``evaluation.open_judge``: a wild function
that passes the tests must also agree with the task's independent reference).

A task file's ``[validation]`` table (never shipped) holds an independently written ``reference``
and an ``inputs(rng)`` generator of typical valid argument tuples. Two questions are asked with
the same sandboxed comparison:

- does the canonical agree with the reference on every generated input? (a canonical that
  contradicts its query off the tested inputs disagrees with an implementation written from the
  query alone);
- does a mutant agree with the canonical on every generated input? A mutant that passes every
  test and agrees everywhere is *equivalent* on the input domain (recorded, never shipped); one
  that passes every test but disagrees somewhere is a bug the tests miss; a shipped mutant must
  disagree on at least one input, i.e. be wrong on a typical valid input, not only on an invalid one.

- are two mutants the same program? (they agree with each other on every generated input and
  fail the same tests the same way): the build never ships both.

All run in the oracle as ordinary suites: the code under check, followed by a harness that
executes the other implementation and the generator in namespaces of their own, and one test per
input slot (``assert _er_agree(i)``). Two results agree when they are equal, numbers compared with
a relative tolerance of 1e-9 (a different algorithm may round differently), and a raised exception
agrees with an exception of the same type. The arguments after the call are compared too, so an
in-place function is checked on what it leaves behind. A slot past the generator's last input
raises ``NoGeneratedInput``, so the outcomes also say how many inputs there were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..oracle.outcomes import OutcomeKind, Suite, SuiteResult

INPUTS_SEED = 20261201
MIN_INPUTS, MAX_INPUTS = 10, 30
REFERENCE_NAME = "reference"
GENERATOR_NAME = "inputs"
ABSENT = "NoGeneratedInput"
"""The error a slot past the generator's last input raises (``ERROR:NoGeneratedInput``)."""

_HARNESS = '''

import copy as _er_copy
import math as _er_math
import random as _er_random

_er_other = {{}}
exec({other!r}, _er_other)
_er_generator = {{}}
exec({inputs!r}, _er_generator)
_er_inputs = [tuple(a) for a in _er_generator[{generator!r}](_er_random.Random({seed}))]


def _er_call(function, args):
    args = _er_copy.deepcopy(args)
    try:
        return ("value", function(*args)), args
    except Exception as exc:  # a raised exception is a result too: compare its type
        return ("raised", type(exc).__name__), args


def _er_same(a, b):
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        if isinstance(a, float) or isinstance(b, float):
            if _er_math.isnan(a) and _er_math.isnan(b):
                return True
            return a == b or _er_math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_er_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_er_same(a[k], b[k]) for k in a)
    return a == b


class NoGeneratedInput(Exception):
    pass


def _er_agree(index):
    if index >= len(_er_inputs):
        raise NoGeneratedInput(index)
    args = _er_inputs[index]
    return _er_same(_er_call({target}, args), _er_call(_er_other[{other_name!r}], args))
'''


class ValidationSetupError(ValueError):
    """The generator's output is unusable (wrong count, not tuples, crashes): the task file must change."""


@dataclass(frozen=True)
class Agreement:
    """How many inputs were generated, which two implementations disagree on (indices), which timed out
    or came near their CPU limit (``SuiteResult.near_limit``: either verdict depends on machine speed)."""

    inputs: int
    disagree: tuple[int, ...]
    timeouts: tuple[int, ...]
    error: str | None = None
    """Why the comparison could not be made (the oracle failed, or the code under check broke the harness)."""

    @property
    def agrees(self) -> bool:
        return not self.disagree and not self.timeouts and self.error is None


def agreement_suite(
    code: str, target: str, other: str, other_name: str, inputs: str, seed: int = INPUTS_SEED
) -> Suite:
    """A suite that checks ``code``'s ``target`` against ``other``'s ``other_name`` on every generated input.

    Test 0 checks the generator's output; tests 1..MAX_INPUTS compare one input slot each.
    """
    harness = _HARNESS.format(
        other=other, inputs=inputs, generator=GENERATOR_NAME, seed=seed, target=target, other_name=other_name
    )
    tests = [f"assert {MIN_INPUTS} <= len(_er_inputs) <= {MAX_INPUTS}"]
    tests += [f"assert _er_agree({i})" for i in range(MAX_INPUTS)]
    return Suite(code.rstrip("\n") + "\n" + harness, tuple(tests))


def reference_suite(canonical: str, target: str, reference: str, inputs: str) -> Suite:
    """The canonical against the task's independently written reference."""
    return agreement_suite(canonical, target, reference, REFERENCE_NAME, inputs)


def mutant_suite(mutant: str, target: str, against: str, inputs: str) -> Suite:
    """A mutant against its canonical (or, to tell whether two mutants are the same program, against another mutant)."""
    return agreement_suite(mutant, target, against, target, inputs)


def read_agreement(result: SuiteResult) -> Agreement:
    """Interpret an agreement suite's result; a broken generator or harness raises ``ValidationSetupError``."""
    if result.infra_error is not None:
        raise ValidationSetupError(f"the oracle could not run the validation check ({result.infra_error})")
    head, slots = result.outcomes[0], result.outcomes[1:]
    if not head.passed:
        what = "returned too few or too many inputs" if head.kind is OutcomeKind.FAIL else f"failed ({head.to_str()})"
        raise ValidationSetupError(
            f"validation.inputs(rng) {what}; it must return {MIN_INPUTS}-{MAX_INPUTS} argument tuples"
        )
    present = [o for o in slots if not (o.kind is OutcomeKind.ERROR and o.detail == ABSENT)]
    disagree = tuple(i for i, o in enumerate(present) if o.kind in (OutcomeKind.FAIL, OutcomeKind.ERROR))
    # an input that came near its CPU limit counts as timed out: on a slower or busier machine it could
    timeouts = tuple(
        i for i, o in enumerate(present) if o.kind is OutcomeKind.TIMEOUT or i + 1 in result.near_limit
    )
    return Agreement(len(present), disagree, timeouts)


def read_mutant_agreement(result: SuiteResult) -> Agreement:
    """``read_agreement`` for a mutant (the task's generator already worked for the canonical).

    A failure to compare is not the author's to fix here: it comes back as ``Agreement.error``,
    which the selection treats as unusable (and a pair of mutants as possibly the same program).
    """
    try:
        return read_agreement(result)
    except ValidationSetupError as exc:
        return Agreement(0, (), (), error=str(exc))


def is_raises_test(test: str) -> bool:
    """A test that checks an exception (``with pytest.raises(...)``), i.e. one on an invalid input."""
    return test.lstrip().startswith("with pytest.raises")


def raises_tests(tests: Sequence[str]) -> frozenset[int]:
    """Indices of the ``pytest.raises`` tests: a failure there is wrong behaviour on an invalid input only."""
    return frozenset(i for i, t in enumerate(tests) if is_raises_test(t))


def value_tests(tests: Sequence[str]) -> tuple[int, ...]:
    """Indices of the tests that check a value on a valid input (every test but the raises blocks)."""
    return tuple(i for i, t in enumerate(tests) if not is_raises_test(t))
