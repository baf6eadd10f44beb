"""Importing the analysis package has no side effects: no plotting library, no mteb, no oracle runner."""

from __future__ import annotations

import subprocess
import sys


def test_import_loads_neither_matplotlib_nor_mteb_nor_the_oracle_runner() -> None:
    code = ("import sys, execretrieval_mteb.analysis; "
            "print(sorted(m for m in ('matplotlib', 'mteb', 'torch', 'execretrieval_mteb.oracle.api') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    assert out == "[]"
