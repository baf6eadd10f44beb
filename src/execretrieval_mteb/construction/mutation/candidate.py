"""A candidate edit (what an operator proposes) and a mutant (a checked, spliced candidate)."""

from __future__ import annotations

from dataclasses import dataclass

from ...dataset.schema import BugType
from .source import Path, Span, TreeEdit


@dataclass(frozen=True)
class Candidate:
    """One proposed edit: replace ``span`` of the canonical by ``after``.

    ``expect`` applies the same edit to a copy of the tree; the engine keeps the candidate only
    if the spliced text parses to exactly that tree.
    ``anchor`` is the path of the edited node, whose enclosing expression the description quotes.
    """

    bug_type: BugType
    span: Span
    after: str
    anchor: Path
    expect: TreeEdit


@dataclass(frozen=True)
class Mutant:
    """A single contiguous edit of the canonical: ``code == canonical[:start] + after + canonical[end:]``."""

    bug_type: BugType
    code: str
    span: Span
    before: str
    after: str
    line: int
    bug_description: str

    def to_metadata(self) -> dict[str, object]:
        return {
            "bug_type": self.bug_type.value,
            "bug_description": self.bug_description,
            "line": self.line,
            "span": list(self.span),
            "before": self.before,
            "after": self.after,
        }
