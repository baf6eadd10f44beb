"""ExecRetrieval for MTEB: execution-verified code retrieval with near-clone buggy distractors.

Organised by pipeline stage; importing this package has no side effects:

- ``construction``: authored task files -> AST mutants -> five validation gates -> corpus.
- ``oracle``: sandboxed execution of (code, tests) suites with per-test outcomes and a cache.
- ``dataset``: the on-disk schema of a built dataset (original-study and MTEB/HF layouts).
- ``mteb_task``: the ``ExecRetrieval`` MTEB task and its registration hook.
- ``evaluation``: execution-aware metrics over MTEB's per-query rankings.
- ``cli``: the ``execretrieval`` command.
"""

__version__ = "0.1.0"
