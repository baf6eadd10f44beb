"""Results: everything a run leaves in a results folder, and the one home of each result concept.

Above ``evaluation`` (scoring), ``analysis`` (statistics) and ``mteb_task`` (the MTEB task), which
it calls and which never import it (``tests/test_layers.py``):

- ``results_folder``: the folder's layout (one owner for every path);
- ``encode``: a model's mteb run into the folder (MTEB result, predictions, frozen embeddings);
- ``predictions``: MTEB's saved predictions read back as rankings, and scored;
- ``frozen``, ``matrices``: frozen embeddings and every model's full score matrix without the model;
- ``report``: the per-model evaluation file; ``outputs``: the leaderboard and analyses over a folder;
- ``rescore``: everything ``run`` wrote, again, from the frozen matrices and the dataset alone;
- ``rows``: the leaderboard row (one type); ``leaderboard``: its table and files;
- ``analysis_files``: the statistics a folder holds, read back; ``reference``: the README's reference results.
"""
