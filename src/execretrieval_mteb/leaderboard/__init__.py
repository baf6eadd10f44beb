"""Submitting results: the package for MTEB's results repository and this benchmark's own leaderboard.

Rows and the analysis files they read are ``results.rows`` and ``results.analysis_files``.

- ``mteb_results``: ``results/<org__model>/<revision>/ExecRetrieval.json`` + ``model_meta.json``, validated by mteb;
- ``site``: the static page (``leaderboard/index.html``) that opens from disk;
- ``submit``: ``execretrieval submit RESULTS_DIR -o OUT``.
"""
