"""AST mutation engine: one module per bug type, an engine that enumerates and verifies the edits."""

from .candidate import Mutant
from .engine import BUG_TYPE_ORDER, enumerate_mutants

__all__ = ["BUG_TYPE_ORDER", "Mutant", "enumerate_mutants"]
