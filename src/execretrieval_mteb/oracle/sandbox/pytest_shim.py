"""The minimal ``pytest`` stand-in placed in every test namespace (``raises``, ``approx``).

Sandbox-side module: stdlib only and no package imports, because its source text is concatenated
(first) into the sandbox program (see ``program.py``); the study's reference runner
(``benchmarks/reference_runner.py``) prepends the same text to its own child. Its public names are
``pytest`` and ``_DidNotRaise``.
"""

import math as _math
import types as _types


class _DidNotRaise(AssertionError):
    """The expected exception was not raised: reported as FAIL:<ExpectedType>."""

    def __init__(self, expected):
        super().__init__(f"DID NOT RAISE {expected!r}")
        self.expected = expected


class _Raises:
    def __init__(self, expected, match=None):
        self.expected = expected
        self.match = match
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            names = self.expected if isinstance(self.expected, tuple) else (self.expected,)
            raise _DidNotRaise("|".join(getattr(e, "__name__", str(e)) for e in names))
        if not issubclass(exc_type, self.expected):
            return False
        if self.match is not None:
            import re
            if not re.search(self.match, str(exc)):
                raise AssertionError(f"Regex {self.match!r} does not match {str(exc)!r}")
        self.value = exc
        return True


class _Approx:
    def __init__(self, expected, rel=None, abs=None):
        self.expected, self.rel, self.abs = expected, rel, abs

    def _close(self, expected, actual):
        if isinstance(expected, (list, tuple)):
            return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                    and all(self._close(e, a) for e, a in zip(expected, actual)))
        if isinstance(expected, dict):
            return (isinstance(actual, dict) and actual.keys() == expected.keys()
                    and all(self._close(expected[k], actual[k]) for k in expected))
        try:
            rel = 1e-6 if self.rel is None else self.rel
            abs_tol = 1e-12 if self.abs is None else self.abs
            return _math.isclose(actual, expected, rel_tol=rel, abs_tol=abs_tol)
        except TypeError:
            return actual == expected

    def __eq__(self, actual):
        return self._close(self.expected, actual)

    def __repr__(self):
        return f"approx({self.expected!r})"


pytest = _types.SimpleNamespace(raises=_Raises, approx=_Approx)
