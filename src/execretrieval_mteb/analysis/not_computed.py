"""The marker an analysis returns, per model or as a whole, when its inputs are missing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NotComputed:
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"computed": False, "reason": self.reason}
