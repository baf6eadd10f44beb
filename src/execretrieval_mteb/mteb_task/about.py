"""What the task is, in words: its description, prompt, citation and statistics file (no mteb import,
so the dataset card can use them)."""

from pathlib import Path

DESCRIPTION = (
    "Execution-verified Python code retrieval. Each query describes a function; the corpus holds "
    "every canonical implementation plus near-identical single-edit mutants (off-by-one, wrong "
    "operator, wrong comparison, swapped arguments, removed edge-case check) that fail the query's "
    "tests. exec@k asks whether a snippet passing all tests is in the top k."
)
REFERENCE = "https://arxiv.org/abs/2609.01865"

QUERY_PROMPT = (
    "Given a description of a Python function, retrieve a code snippet that implements it correctly"
)

CITATION = r"""
@misc{kapoor2026execretrieval,
  archiveprefix = {arXiv},
  author = {Kapoor and Khan},
  eprint = {2609.01865},
  primaryclass = {cs.SE},
  title = {ExecRetrieval: Measuring the Functional-Correctness Gap in Code-Embedding Retrieval},
  url = {https://arxiv.org/abs/2609.01865},
  year = {2026},
}
"""

STATS_FILE = Path(__file__).with_name("descriptive_stats") / "ExecRetrieval.json"
"""mteb's descriptive statistics of the released data, shipped with the package (``statistics``)."""
