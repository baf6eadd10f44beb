"""Where the dataset bundled with the package lives (built by `execretrieval build`, committed)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

BUNDLED_DATASET_DIR: Path = Path(str(files("execretrieval_mteb"))) / "data" / "execretrieval"
