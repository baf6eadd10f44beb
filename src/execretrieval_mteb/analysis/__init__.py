"""Statistics, analyses, figures and ``report.md`` over ``ModelReport``s (one concept per module).

Inputs: ``evaluation.model_report.ModelReport`` per model, optionally its ``FrozenScores`` (full
score matrix), its corpus embeddings (``geometric_chance.FamilyEmbeddings``), its stacked-mutant
scores (``stacked.StackedScores``) and its run's token counts (``truncation.TokenLengths``), and the dataset. Nothing here imports mteb or runs the oracle.

Statistics
- ``bootstrap``: one resample-count matrix, every replicate mean as one product.
- ``intervals``: 95 % percentile bootstrap interval per model and metric.
- ``mcnemar``, ``sign_flip``, ``holm``: the paired tests and the multiple-testing adjustment.
- ``pairwise``: every pair of models on every metric (``PairedTest`` says which test was used).
- ``statistics``: both at once, and each model's test against the model above it.

Analyses (``result.Analysis``)
- ``family``, ``family_scores``: the (query x family member) grid and each model's scores on it.
- ``miss_attribution``, ``similarity_gap``, ``deception``, ``pool_density``, ``edit_size``,
  ``length_bias``, ``stacked``, ``per_domain``, ``difficulty``, ``family_accuracy``,
  ``structure_baseline``, ``geometric_chance``, ``truncation``.

Output
- ``compute.analyse`` (no files), ``write.write_analysis`` (files), ``figures``, ``report_md``.
"""

from __future__ import annotations

from .compute import analyse
from .config import StatsConfig
from .geometric_chance import FamilyEmbeddings, Similarity
from .intervals import Interval
from .pairwise import PairedTest, PairResult
from .result import Analysis, AnalysisResult
from .not_computed import NotComputed
from .stacked import StackedScores
from .truncation import TokenLengths
from .write import write_analysis

__all__ = [
    "Analysis", "AnalysisResult", "FamilyEmbeddings", "Interval", "NotComputed", "PairResult", "PairedTest",
    "Similarity", "StackedScores", "StatsConfig", "TokenLengths", "analyse", "write_analysis",
]
