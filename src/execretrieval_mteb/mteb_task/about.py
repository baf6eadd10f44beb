"""What the task is, in words, read from the task module's own source without importing mteb.

``exec_retrieval.py`` is the task exactly as it goes into mteb's repository; its ``TaskMetadata(...)``
call is the one place the task's description, reference, citation, prompt and pinned dataset are
written. The dataset card and the contribution generator need those words where mteb (and torch)
should not be imported, so they are read here from the module's syntax tree: literal keyword
arguments of the ``TaskMetadata`` call, nothing executed.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

TASK_MODULE = Path(__file__).with_name("exec_retrieval.py")
"""The upstream task module: the file an mteb pull request adds (``mteb/tasks/retrieval/code/``)."""

STATS_FILE = Path(__file__).with_name("descriptive_stats") / "ExecRetrieval.json"
"""mteb's descriptive statistics of the released data (``mteb/descriptive_stats/Retrieval/`` upstream)."""


def metadata_call(tree: ast.Module) -> ast.Call:
    """The ``TaskMetadata(...)`` call of the module's task class."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "TaskMetadata":
            return node
    raise ValueError(f"{TASK_MODULE}: no TaskMetadata(...) call")


@cache
def metadata_literals() -> dict[str, Any]:
    """Every keyword of the task's ``TaskMetadata`` call whose value is a literal."""
    call = metadata_call(ast.parse(TASK_MODULE.read_text(encoding="utf-8")))
    literals = {}
    for keyword in call.keywords:
        try:
            literals[str(keyword.arg)] = ast.literal_eval(keyword.value)
        except ValueError:
            continue
    return literals


_META = metadata_literals()
NAME: str = _META["name"]
DESCRIPTION: str = _META["description"]
REFERENCE: str = _META["reference"]
CITATION: str = _META["bibtex_citation"]
QUERY_PROMPT: str = _META["prompt"]["query"]
MODULE_REPO: str = _META["dataset"]["path"]
MODULE_REVISION: str = _META["dataset"]["revision"]
"""The dataset commit the task module pins (``UNRELEASED`` until the first release is pinned)."""
