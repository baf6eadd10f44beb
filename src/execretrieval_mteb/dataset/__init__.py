"""The on-disk dataset, shared by every stage: its schema, reading and writing, and its identity.

- ``schema``: the records of the study's layout (queries, corpus, distractor metadata).
- ``io``: loading a built dataset (ours or the original release).
- ``layout``: writing one: both layouts, rendered deterministically, swapped into place with ``SHA256SUMS``.
- ``manifest``: ``SHA256SUMS``, verification on load, and the dataset fingerprint.
- ``release``: the pinned official release and the ``dataset_revision`` results are filed under.
- ``bundled``: where the dataset shipped inside the package lives.
"""
