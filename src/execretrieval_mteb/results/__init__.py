"""Results: everything a run leaves in a results folder, and the one home of each result concept.

Above ``evaluation`` (scoring), ``analysis`` (statistics) and ``mteb_task`` (the MTEB task), which
it calls and which never import it (``tests/test_layers.py``):

- ``results_folder``: the folder's layout (one owner for every path);
- ``encode``: a model's mteb run into the folder (MTEB result, predictions, frozen embeddings, run record);
- ``run_record``: what ``rescore`` needs besides the matrices (``embeddings/<org__model>.json``);
- ``predictions``: MTEB's saved predictions read back as rankings, and scored;
- ``frozen``, ``matrices``: frozen embeddings and every model's full score matrix without the model;
- ``report``: the per-model evaluation file; ``outputs``: the leaderboard and analyses over a folder;
- ``rescore``, ``frozen_encoder``: everything ``run`` wrote, again (or checked), from ``embeddings/``
  and the dataset alone, mteb's search re-run on the frozen embeddings;
- ``rows``: the leaderboard row (one type); ``leaderboard``: its table and files;
- ``analysis_files``: the statistics a folder holds, read back; ``reference``: the README's reference results;
- ``open_outputs``, ``open_results``: the open task's evaluation files and its closed-vs-open comparison.
"""
