"""Read the open pool's companion data: the wild corpus and the validation references.

Layouts (written by ``construction.wild.build`` and ``construction.open_validation``)::

    WILD/                          the wild corpus (built on the machine, see construction.wild.store)
      wild_corpus.jsonl            {corpus_id: w_<16 hex>, code, function_name, package, version, file, line,
                                    license, license_declared, free_names, closed}
      sources.json                 every source seen, its licence and counts
      README.md                    the card
      SHA256SUMS                   over the three; its lines of the first two are the corpus fingerprint

    data/open/                     shipped in the package (derived from tasks/)
      validation.jsonl             {query_id, function_name, reference, inputs}
      SHA256SUMS

Both are verified against their ``SHA256SUMS`` when read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from . import manifest
from .io import BuiltDataset, DatasetError, read_jsonl

WILD_CORPUS, WILD_SOURCES, WILD_CARD = "wild_corpus.jsonl", "sources.json", "README.md"
WILD_DATA = (WILD_CORPUS, WILD_SOURCES)
"""The wild corpus's data files (its fingerprint covers these; the card is description)."""
VALIDATION = "validation.jsonl"
OPEN_DATA_DIR: Path = Path(str(files("execretrieval_mteb"))) / "data" / "open"
"""The validation references and generators that ship with the open task."""


@dataclass(frozen=True)
class WildRecord:
    corpus_id: str
    code: str
    function_name: str
    package: str
    version: str
    file: str
    line: int
    license: str
    closed: bool = False


@dataclass(frozen=True)
class WildCorpus:
    root: Path
    records: tuple[WildRecord, ...]
    fingerprint: str

    def by_id(self) -> dict[str, WildRecord]:
        return {r.corpus_id: r for r in self.records}


@dataclass(frozen=True)
class ValidationRecord:
    """A query's independently written ``reference(...)`` and its ``inputs(rng)`` generator (source text)."""

    query_id: str
    function_name: str
    reference: str
    inputs: str


def _verified(root: Path, names: tuple[str, ...], what: str) -> str:
    if not (root / manifest.SUMS).is_file():
        raise DatasetError(f"{root}: no {manifest.SUMS}; {what}")
    paths = [root / n for n in names]
    manifest.verify(root, paths)
    return manifest.fingerprint(root, paths)


def wild_fingerprint(root: Path) -> str:
    """The wild corpus's fingerprint from its ``SHA256SUMS`` alone (``manifest.fingerprint`` of its data files)."""
    return manifest.fingerprint(root, [Path(root) / name for name in WILD_DATA])


def iter_wild(root: Path) -> Iterator[WildRecord]:
    """The rows of ``wild_corpus.jsonl`` one at a time (not verified: ``load_wild`` verifies)."""
    path = Path(root) / WILD_CORPUS
    for number, obj in read_jsonl(path):
        try:
            yield WildRecord(str(obj["corpus_id"]), obj["code"], obj["function_name"], obj["package"],
                             obj["version"], obj["file"], int(obj["line"]), obj["license"], bool(obj.get("closed")))
        except KeyError as exc:
            raise DatasetError(f"{path}:{number}: missing field {exc}; rebuild it with `execretrieval wild build`") from None


def load_wild(root: Path | str) -> WildCorpus:
    """A wild corpus, verified against its ``SHA256SUMS``."""
    root = Path(root)
    if not (root / WILD_CORPUS).is_file():
        raise DatasetError(f"{root}: no {WILD_CORPUS}; build it with `execretrieval wild build -o {root}`")
    fingerprint = _verified(root, WILD_DATA, "rebuild it with `execretrieval wild build`")
    return WildCorpus(root, tuple(iter_wild(root)), fingerprint)


def load_validation(root: Path | str = OPEN_DATA_DIR) -> Mapping[str, ValidationRecord]:
    """Per target function name (globally unique across tasks), its validation reference and generator (verified)."""
    root = Path(root)
    path = root / VALIDATION
    if not path.is_file():
        raise DatasetError(f"{path}: missing; reinstall the package, or write it with "
                           "`python -m execretrieval_mteb.construction.open_validation tasks/`")
    _verified(root, (VALIDATION,), "write it again with `python -m execretrieval_mteb.construction.open_validation`")
    out: dict[str, ValidationRecord] = {}
    for number, obj in read_jsonl(path):
        try:
            record = ValidationRecord(str(obj["query_id"]), obj["function_name"], obj["reference"], obj["inputs"])
        except KeyError as exc:
            raise DatasetError(f"{path}:{number}: missing field {exc}") from None
        out[record.function_name] = record
    return out


def combined_fingerprint(*parts: str) -> str:
    """One fingerprint for data made of several verified parts (closed dataset, wild corpus, validation)."""
    return hashlib.sha256("\n".join(parts).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class OpenPool:
    """The open task's data: the closed dataset (queries, tests, benchmark snippets, execution cache),
    the wild corpus by id, and the validation references by query id."""

    closed: BuiltDataset
    wild: Mapping[str, WildRecord]
    validation: Mapping[str, ValidationRecord]
    """By query id."""
    wild_fingerprint: str
    validation_fingerprint: str = ""
    """Of the shipped ``data/open`` (its references decide wild verdicts); empty for a caller's own mapping."""

    @property
    def fingerprint(self) -> str:
        """Which open pool, exactly: the closed dataset's, the wild corpus's and the validation data's fingerprints."""
        return combined_fingerprint(self.closed.fingerprint, self.wild_fingerprint, self.validation_fingerprint)


def open_pool(closed: BuiltDataset, wild: WildCorpus, validation: Mapping[str, ValidationRecord] | None = None) -> OpenPool:
    """Join the three parts; every query must have its validation reference, joined by its target's name
    (``validation`` by function name, as ``load_validation`` returns it; default: the shipped one)."""
    by_name = load_validation() if validation is None else validation
    validation_fingerprint = validation_data_fingerprint() if validation is None else ""
    missing = [q.query_id for q in closed.queries if (q.function_name or "") not in by_name]
    if missing:
        raise DatasetError(f"{OPEN_DATA_DIR / VALIDATION}: no validation reference for {len(missing)} queries "
                           f"(first {missing[0]}); it was written from other task files")
    validation = {q.query_id: by_name[q.function_name or ""] for q in closed.queries}
    clash = next((c.corpus_id for c in closed.corpus if c.corpus_id.startswith("w_")), None)
    if clash is not None:
        raise DatasetError(f"{closed.root}: snippet id {clash} uses the wild corpus's prefix w_")
    return OpenPool(closed, wild.by_id(), validation, wild.fingerprint, validation_fingerprint)


def validation_data_fingerprint(root: Path = OPEN_DATA_DIR) -> str:
    """sha256 of the shipped validation data's ``SHA256SUMS`` (cheap: nothing else is read)."""
    return manifest.fingerprint(root, [root / VALIDATION])
