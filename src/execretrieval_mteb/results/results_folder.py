"""The layout of a results folder (``execretrieval-results/`` by default): one owner for every path.

    leaderboard.md, leaderboard.json                 every model evaluated into the folder on this dataset
    mteb/results/<org__model>/<revision>/ExecRetrieval.json   MTEB's own result files
    predictions/<org__model>/ExecRetrieval_predictions.json   per-query scores (MTEB's format)
    predictions/<org__model>/dataset.json            the dataset they were computed on, the model's prompts and similarity
    embeddings/<org__model>.json                     the model's run record (every model; ``run_record``)
    embeddings/<org__model>.npz                      frozen query and corpus embeddings (dense models)
    embeddings/<org__model>.stacked.npz              the same queries with the stacked mutants (run --stacked)
    evaluation/<org__model>.json                     per-query metrics and top k with each test's outcome
    analysis/                                        intervals, paired tests, analyses, report.md, figures
    oracle-cache.sqlite                              the oracle's verdicts for pairs the dataset's cache lacks
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PREDICTIONS_FILE = "ExecRetrieval_predictions.json"
PREDICTION_DATASET_FILE = "dataset.json"


def model_slug(name: str) -> str:
    """mteb's folder name for a model: ``org/name`` -> ``org__name``."""
    return name.replace("/", "__").replace(" ", "_")


@dataclass(frozen=True)
class ResultsFolder:
    root: Path

    @property
    def mteb_cache(self) -> Path:
        return self.root / "mteb"

    @property
    def oracle_cache(self) -> Path:
        return self.root / "oracle-cache.sqlite"

    @property
    def leaderboard(self) -> Path:
        return self.root / "leaderboard.md"

    @property
    def analysis(self) -> Path:
        return self.root / "analysis"

    def predictions_dir(self, slug: str) -> Path:
        return self.root / "predictions" / slug

    def predictions(self, slug: str) -> Path:
        return self.predictions_dir(slug) / PREDICTIONS_FILE

    def prediction_dataset(self, slug: str) -> Path:
        return self.predictions_dir(slug) / PREDICTION_DATASET_FILE

    @property
    def embeddings_dir(self) -> Path:
        return self.root / "embeddings"

    def embeddings(self, slug: str) -> Path:
        return self.embeddings_dir / f"{slug}.npz"

    def run_record(self, slug: str) -> Path:
        return self.embeddings_dir / f"{slug}.json"

    def run_records(self) -> list[Path]:
        return sorted(self.embeddings_dir.glob("*.json"))

    def stacked_embeddings(self, slug: str) -> Path:
        return self.embeddings_dir / f"{slug}.stacked.npz"

    def evaluation(self, slug: str) -> Path:
        return self.root / "evaluation" / f"{slug}.json"

    def evaluations(self) -> list[Path]:
        return sorted((self.root / "evaluation").glob("*.json"))
