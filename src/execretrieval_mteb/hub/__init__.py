"""The Hugging Face Hub release: stage the release folder, push it as one commit, pin the commit.

- ``stage``: the release folder (data, configs, card, results, ``SHA256SUMS``), ``execretrieval hub stage``;
- ``card``: the dataset card and its checks;
- ``push``: the dry-run plan and the single-commit upload, ``execretrieval hub push``;
- ``pin``: write the pushed commit into the package's ``dataset/release.json``, ``execretrieval hub pin``.

Pulling is the task's ``--data hub`` (``mteb_task.data_source``).
"""
