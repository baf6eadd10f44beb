"""The original study's runner, kept as a baseline: one ``python -I`` subprocess per suite.

Fresh namespace per test, 5 s wall-clock timeout per suite, the minimal pytest shim, no
isolation at all. It exists to check the sandboxed oracle against (same verdicts, in the tests)
and to measure its speed-up (``oracle_throughput.py``). It lives here, outside the installed
package, because it runs code unsandboxed: never run untrusted code through it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from execretrieval_mteb.oracle.outcomes import TIMEOUT, Suite, SuiteResult, TestOutcome
from execretrieval_mteb.oracle.program import sandbox_source

_CHILD = sandbox_source("pytest_shim.py") + r'''
import json as _json, sys as _sys

def _classify(exc):
    if isinstance(exc, _DidNotRaise):
        return "FAIL:" + exc.expected
    if isinstance(exc, AssertionError):
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        return "FAIL" if tb.tb_frame.f_code.co_filename == "<test>" else "ERROR:AssertionError"
    return "ERROR:" + type(exc).__name__

_suite = _json.loads(_sys.stdin.read())
try:
    _code = compile(_suite["code"], "<code>", "exec")
except SyntaxError:
    _code = None
for _test in _suite["tests"]:
    if _code is None:
        _out = "ERROR:SyntaxError"
    else:
        _ns = {"__name__": "__main__", "pytest": pytest}
        try:
            exec(_code, _ns)
            exec(compile(_test, "<test>", "exec"), _ns)
            _out = "pass"
        except BaseException as _exc:  # noqa: BLE001 - every escape is a verdict
            _out = _classify(_exc)
    _sys.stdout.write(_json.dumps(_out) + "\n")
    _sys.stdout.flush()
'''


def run_suite_reference(suite: Suite, timeout_s: float = 5.0) -> SuiteResult:
    """Run one suite the way the original study did; tests left when the deadline hits are TIMEOUT."""
    payload = json.dumps({"code": suite.code, "tests": list(suite.tests)})
    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-c", _CHILD],
            input=payload, capture_output=True, text=True, timeout=timeout_s,
        )
        stdout = proc.stdout
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    done = [TestOutcome.parse(json.loads(line)) for line in stdout.splitlines() if line.startswith('"')]
    done = done[: len(suite.tests)]
    return SuiteResult(outcomes=tuple(done) + (TIMEOUT,) * (len(suite.tests) - len(done)))
