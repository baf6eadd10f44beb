"""AST mutation engine: one module per bug type, realism rules, an engine that enumerates and verifies the edits."""

from .candidate import Mutant
from .engine import BUG_TYPE_ORDER, Enumeration, count_removed, enumerate_candidates, enumerate_mutants
from .realism import RealismRule

__all__ = [
    "BUG_TYPE_ORDER",
    "Enumeration",
    "Mutant",
    "RealismRule",
    "count_removed",
    "enumerate_candidates",
    "enumerate_mutants",
]
