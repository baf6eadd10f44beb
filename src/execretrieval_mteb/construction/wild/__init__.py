"""The wild corpus of the open-pool task: real, self-contained Python functions from code already on the machine.

``sources`` lists where they come from (the sandbox interpreter's standard library and the
distributions installed in the project's environment) with each source's licence (``licenses``);
``extract`` cuts the self-contained top-level functions out of one file; ``dedup`` gives the keys
two functions are the same under; ``build`` streams it all into ``wild_corpus.jsonl`` with its card.
"""
