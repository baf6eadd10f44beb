"""Execution-aware evaluation over per-query rankings (one concept per module).

- ``metric_names``: the reported metrics and their keys in MTEB's result JSON.
- ``standing``: the order of models on every leaderboard and its significance threshold.
- ``ranking``: a ranking as groups of tied scores (the neutral tie rule lives here).
- ``exec_at_k``, ``execution_precision``, ``ndcg``: each metric's exact expectation under random tie-breaking.
- ``scoring``: every metric for every query, and the means over queries.
- ``verdicts``, ``static_proof``: which (query, snippet) pairs pass, from the execution cache, a static
  proof, then the oracle.
- ``model_report``: one model's evaluation (``ModelReport``), what every later stage reads.
- ``pipeline``: rankings -> verdicts -> scores -> ``ModelReport``.
- ``open_judge``, ``open_pipeline``, ``open_per_query``: the open pool (``ExecRetrievalOpen``): wild
  functions bound to the target and judged by tests and reference, and the per-query quantities of
  the closed-vs-open comparison (its files are ``results.open_outputs`` and ``results.open_results``).

Files (predictions, evaluation files, frozen embeddings, the leaderboard) are ``results``; bootstrap
intervals, paired tests and the other analyses (``analysis``) build on ``scoring.PerQueryScores``.
Nothing here imports ``results``, ``analysis`` or ``mteb_task`` (``tests/test_layers.py``).
"""
