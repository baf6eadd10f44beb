"""Execution-aware evaluation over per-query rankings (one concept per module).

- ``metric_names``: the reported metrics and their keys in MTEB's result JSON.
- ``ranking``: a ranking as groups of tied scores (the neutral tie rule lives here).
- ``exec_at_k``, ``execution_precision``, ``ndcg``: each metric's exact expectation under random tie-breaking.
- ``scoring``: every metric for every query, and the means over queries.
- ``verdicts``: which (query, snippet) pairs pass, from the execution cache, then the oracle.
- ``predictions``: reading MTEB's saved predictions back as rankings.
- ``report``: the per-model result file in the original study's schema.
- ``leaderboard``: the table of models by metric.
- ``open_judge``, ``open_pipeline``, ``open_per_query``, ``open_outputs``, ``open_results``: the open
  pool (``ExecRetrievalOpen``): wild functions bound to the target and judged by tests and reference,
  the per-query quantities of the closed-vs-open comparison, the open evaluation file and folder.

Bootstrap intervals, McNemar tests and the other analyses build on ``scoring.PerQueryScores``.
"""
