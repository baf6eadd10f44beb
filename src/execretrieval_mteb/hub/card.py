"""The release's dataset card (``README.md``), rendered by huggingface_hub's ``DatasetCard.from_template``.

The YAML is a ``DatasetCardData``: only fields the Hub knows. Its values are those mteb's own card
generator gives the task (``TaskMetadata._create_dataset_card_data``: ``language`` ``[code, eng]``,
``annotations_creators``, ``multilinguality``, ``task_categories``, ``tags`` starting with ``mteb``),
extended with the release's ``pretty_name``, ``size_categories``, ``source_datasets``, more tags, and
``configs``/``dataset_info`` (each config's data files, columns and row count, so
``datasets.load_dataset(repo, config)`` and mteb's loader find them). The citation is in the body,
as mteb's template puts it. The body is the Jinja2 template ``templates/dataset_card.md``: what it
measures, how it was built, mteb's descriptive statistics of this data, the configs, a loading
example that runs as written (the tests run it against a Hub-protocol server), the leaderboard
with 95 % intervals and significance marks (when results are staged), the files, limitations,
citation.

``check_card`` parses the card with huggingface_hub's card API (``DatasetCard``) and datasets'
config parser, and checks what the Hub would refuse (unknown size category, configs without data
files, a config file missing from the release); ``execretrieval hub stage`` runs it before writing
and the Hub validates the YAML again when the card is pushed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataset.io import BuiltDataset
from ..dataset.schema import DOMAINS, BugType, Label
from ..errors import ExecRetrievalError
from ..results.rows import Row, markdown_table
from ..mteb_task.about import QUERY_PROMPT
from .open_release import OpenRelease

SIZE_CATEGORIES = (
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"),
)
"""The Hub's size categories (by number of rows of the largest config), smallest first."""


HUB_FIELDS = frozenset({
    "pretty_name", "license", "license_name", "license_link", "language", "language_creators", "annotations_creators",
    "multilinguality", "size_categories", "source_datasets", "task_categories", "task_ids", "paperswithcode_id",
    "tags", "configs", "dataset_info", "train-eval-index", "extra_gated_prompt", "viewer",
})
"""The dataset-card metadata fields the Hub documents (huggingface_hub's ``DatasetCardData`` and the
Hub's dataset card specification); anything else belongs in the body."""


class CardError(ExecRetrievalError):
    """The dataset card would be refused; the message says what to fix."""


@dataclass(frozen=True)
class Config:
    name: str
    path: str
    rows: int
    description: str
    features: Sequence[Mapping[str, Any]] = ()
    """The config's columns in the card's ``dataset_info`` form (``datasets.Features._to_yaml_list``)."""
    num_bytes: int = 0
    """The split's size in Arrow, as ``datasets`` records it."""


def config_info(path: Path) -> tuple[list[dict[str, Any]], int, int]:
    """Columns, Arrow size and rows ``datasets`` gives a JSONL or Parquet file (the loaders the Hub and mteb use)."""
    import tempfile

    from datasets import load_dataset

    builder = "parquet" if path.suffix == ".parquet" else "json"
    with tempfile.TemporaryDirectory(prefix="execretrieval-features-") as cache:
        loaded = load_dataset(builder, data_files={"test": str(path)}, split="test", cache_dir=cache)
        return list(loaded.features._to_yaml_list()), int(loaded.info.splits["test"].num_bytes), loaded.num_rows


@dataclass(frozen=True)
class CardInputs:
    repo_id: str
    dataset: BuiltDataset
    configs: Sequence[Config]
    build_report: Mapping[str, Any] | None
    rows: Sequence[Row]
    """Leaderboard rows (empty when no results are staged)."""
    extra_files: Mapping[str, str]
    """Release paths beyond the data (embeddings, results) -> what they are."""
    notes: Sequence[str] = ()
    """What the staging left out, and why (stated on the card)."""
    open: OpenRelease | None = None
    """The open task's part (``hub.open_release``), when staged with ``--open``."""


def size_category(n: int) -> str:
    return next((label for bound, label in SIZE_CATEGORIES if n < bound), "n>1T")


def card_data(inputs: CardInputs) -> tuple[Any, dict[str, Any]]:
    """The card's ``DatasetCardData`` and mteb's template values (citation, description, statistics...).

    mteb's generator supplies the task's values; the release adds what only it knows. ``dataset_info``
    gives each config's columns and row count, so ``datasets`` (and mteb's loader, which asks for
    split names first) need not open a data file to learn them.
    """
    from huggingface_hub import DatasetCardData

    from ..mteb_task.exec_retrieval import ExecRetrieval

    # The task's own metadata is all mteb's generator reads (``inputs.dataset`` is loaded already).
    mteb_data, values = ExecRetrieval.metadata._create_dataset_card_data()
    fields = mteb_data.to_dict()
    tags = list(dict.fromkeys([*fields.get("tags", []), *EXTRA_TAGS]))
    data = DatasetCardData(
        pretty_name="ExecRetrieval",
        license=fields.get("license") or "apache-2.0",
        language=fields["language"],
        annotations_creators=fields.get("annotations_creators"),
        multilinguality=fields.get("multilinguality"),
        task_categories=fields.get("task_categories") or ["text-retrieval"],
        task_ids=fields.get("task_ids") or ["document-retrieval"],
        size_categories=[size_category(max(c.rows for c in inputs.configs))],
        source_datasets=["original"],
        tags=tags,
        configs=[{"config_name": c.name, "data_files": [{"split": "test", "path": c.path}]} for c in inputs.configs],
        dataset_info=[
            {"config_name": c.name, "features": [dict(f) for f in c.features],
             "splits": [{"name": "test", "num_bytes": c.num_bytes, "num_examples": c.rows}]}
            for c in inputs.configs
        ],
    )
    return data, values


EXTRA_TAGS = ("code", "python", "code-retrieval", "execution-verified", "functional-correctness")
TEMPLATE = Path(__file__).with_name("templates") / "dataset_card.md"


def _build_values(report: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the template says about the build, from the build report (empty without one)."""
    report = report or {}
    sweeps = report.get("sweeps") or {}
    cross, sanity = sweeps.get("cross_canonical") or {}, sweeps.get("distractor_sanity") or {}
    candidates = report.get("candidates") or {}
    settings = report.get("settings") or {}
    return {
        "gates": sorted((report.get("gates") or {}).items()),
        "sweeps": {"canonicals_passing": sanity.get("canonicals_passing", "?"),
                   "mutants_passing": sanity.get("mutants_passing", "?"),
                   "items_searched": cross.get("items_searched", "?"),
                   "collisions_shipped": cross.get("collisions_shipped", "?")} if cross or sanity else None,
        "candidates": [(k.replace("_", "-"), candidates[k]) for k in
                       ("enumerated", "executed", "accepted", "equivalent", "crash_only", "slow")
                       if isinstance(candidates.get(k), int)],
        "settings": [(k, v) for k, v in sorted(settings.items()) if not isinstance(v, dict)],
        "seed": report.get("seed", "?"),
    }


def _domain_report(data: BuiltDataset) -> dict[str, Any]:
    """The per-domain counts of ``construction.report`` recomputed from the records (no build report)."""
    from ..construction.report import canonical_lines

    corpus = {c.corpus_id: c for c in data.corpus}
    types = [t.value for t in BugType]
    domains: dict[str, Any] = {}
    all_lines: list[int] = []
    for domain in sorted({q.domain or "unknown" for q in data.queries}, key=lambda d: (d not in DOMAINS, d)):
        ours = [q for q in data.queries if (q.domain or "unknown") == domain]
        lines = [canonical_lines(corpus[cid].code) for q in ours for cid in q.correct_corpus_ids if cid in corpus]
        all_lines += lines
        counts = Counter(corpus[cid].bug_type for q in ours for cid in q.paired_distractor_corpus_ids if cid in corpus)
        domains[domain] = {"queries": len(ours), "median_canonical_lines": statistics.median(lines) if lines else None,
                           "mutants_by_bug_type": {t: counts.get(t, 0) for t in types}}
    mutants = Counter(c.bug_type for c in data.corpus if c.label is Label.INCORRECT)
    total = sum(mutants.values()) or 1
    return {
        "domains": domains,
        "counts": {"queries": len(data.queries), "median_canonical_lines": statistics.median(all_lines) if all_lines else None},
        "bug_types": {t: {"count": mutants.get(t, 0), "share": mutants.get(t, 0) / total} for t in types},
    }


def render_card(inputs: CardInputs, stats: Mapping[str, Any]) -> str:
    """The card: ``card_data`` as YAML, then the template filled in; ``stats``: mteb's statistics of the data."""
    import json

    from huggingface_hub import DatasetCard

    from ..construction.report import domain_table

    data, values = card_data(inputs)
    dataset = inputs.dataset
    report = inputs.build_report
    card = DatasetCard.from_template(
        data,
        template_path=str(TEMPLATE),
        description=values["dataset_description"],
        dataset_task_name=values["dataset_task_name"],
        category=values["category"],
        domains=values["domains"],
        dataset_reference=values["dataset_reference"],
        citation=values["citation"].strip(),
        descriptive_stats=json.dumps(dict(stats), indent=4),
        stats=stats["test"],
        repo_id=inputs.repo_id,
        fingerprint=dataset.fingerprint,
        n_queries=len(dataset.queries),
        n_domains=len({q.domain for q in dataset.queries}),
        n_snippets=len(dataset.corpus),
        n_mutants=sum(1 for c in dataset.corpus if c.label is Label.INCORRECT),
        query_prompt=QUERY_PROMPT,
        bug_types=[t.value for t in BugType],
        domain_table=domain_table(report if report and report.get("domains") else _domain_report(dataset)),
        configs=inputs.configs,
        rows=inputs.rows,
        n_rows_queries=inputs.rows[0].n_queries if inputs.rows else 0,
        with_intervals=any(r.intervals for r in inputs.rows),
        leaderboard_table=markdown_table(inputs.rows) if inputs.rows else "",
        extra_files=dict(inputs.extra_files),
        notes=list(inputs.notes),
        open=inputs.open,
        **_build_values(report),
    )
    return str(card)


def check_card(text: str, root: Path | None = None) -> dict[str, Any]:
    """Parse ``text`` as the Hub and ``datasets`` would; ``CardError`` names the first problem.

    With ``root`` (the release folder) every config's data files must exist there.
    """
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    try:
        card = DatasetCard(text, ignore_metadata_errors=False)
    except Exception as exc:  # noqa: BLE001 - the card API raises ValueError or yaml errors
        raise CardError(f"README.md: the card's metadata does not parse ({type(exc).__name__}: {exc})") from None
    data = card.data.to_dict()
    for key in ("pretty_name", "license", "language", "task_categories", "tags", "size_categories", "configs",
                "source_datasets", "annotations_creators", "multilinguality"):
        if not data.get(key):
            raise CardError(f"README.md: the card's metadata lacks '{key}'")
    unknown_keys = sorted(set(data) - HUB_FIELDS)
    if unknown_keys:
        raise CardError(f"README.md: {unknown_keys[0]!r} is not a metadata field the Hub knows; put it in the card's body")
    allowed = {label for _, label in SIZE_CATEGORIES} | {"n>1T", "other"}
    unknown = [s for s in data["size_categories"] if s not in allowed]
    if unknown:
        raise CardError(f"README.md: unknown size category {unknown[0]!r}")
    try:
        configs = MetadataConfigs.from_dataset_card_data(card.data)
    except Exception as exc:  # noqa: BLE001 - datasets raises ValueError/TypeError for malformed configs
        raise CardError(f"README.md: the configs do not parse ({type(exc).__name__}: {exc})") from None
    for name, config in configs.items():
        files = config.get("data_files")
        if not files:
            raise CardError(f"README.md: config {name!r} has no data_files")
        if root is not None:
            paths = [f["path"] if isinstance(f, dict) else f for f in files] if isinstance(files, list) else [files]
            for path in (p for item in paths for p in (item if isinstance(item, list) else [item])):
                if not (Path(root) / path).is_file():
                    raise CardError(f"README.md: config {name!r} names {path}, absent from {root}")
    return data
