"""Submitting results: the package for MTEB's results repository and this benchmark's own leaderboard.

- ``analysis_files``: a results folder's intervals, pairwise tests and figures, used only when current;
- ``rows``: one leaderboard row per model (scores, intervals, invocation, dataset identity);
- ``mteb_results``: ``results/<org__model>/<revision>/ExecRetrieval.json`` + ``model_meta.json``, validated by mteb;
- ``site``: the static page (``leaderboard/index.html``) that opens from disk;
- ``submit``: ``execretrieval submit RESULTS_DIR -o OUT``.
"""
