"""``SHA256SUMS``: write it, verify a dataset against it, and the dataset fingerprint it defines.

Every built dataset (and the original release) carries ``SHA256SUMS``: one ``<sha256>  <path>``
line per file, sorted by path, in ``sha256sum``'s format (so ``sha256sum -c SHA256SUMS`` works).
The **fingerprint** of a dataset names its data, wherever it lives: the sha256 of the manifest
lines of the data files the loader reads (``data/queries.jsonl``, ``data/corpus.jsonl``, ...)::

    fingerprint = sha256("".join(f"{sha256(file)}  {path}\n" for path in sorted(data files)))

It changes when any byte of any data file changes, so it names exactly one dataset; and it ignores
everything else in the folder (a card, a build report, a release's results), so the bundled
dataset, a release staged from it and that release downloaded from the Hub, which carry the same
data bytes, have the same fingerprint. Results record it, and mteb's ``dataset_revision`` is
derived from it (see ``dataset.release``), so results computed on a subset, a rebuild or the
official release can never be mixed. The digests are taken from ``SHA256SUMS`` (which the loader
verifies first), or computed for a file it does not list (a hand-made dataset without one).
``sums_sha256`` (the hash of the whole manifest) names a folder's exact bytes instead, e.g. a
staged release with its card and results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import ExecRetrievalError

SUMS = "SHA256SUMS"


class ManifestError(ExecRetrievalError):
    """A dataset file does not match ``SHA256SUMS`` (or the manifest is malformed)."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def render_sums(root: Path, paths: Iterable[Path] | None = None) -> str:
    """Manifest text over ``paths`` (default: every file below ``root`` but the manifest itself), sorted by path.

    A nested folder's own ``SHA256SUMS`` (a release ships the wild corpus folder whole) is a file like any other."""
    root = Path(root)
    chosen = paths if paths is not None else (p for p in root.rglob("*") if p.is_file() and p != root / SUMS)
    rels = sorted(Path(p).relative_to(root).as_posix() for p in chosen)
    return "".join(f"{file_sha256(root / rel)}  {rel}\n" for rel in rels)


def parse_sums(text: str, where: Path | str = SUMS) -> dict[str, str]:
    """``{relative path: sha256}`` from manifest text; a malformed line raises ``ManifestError``."""
    entries: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, rel = line.partition("  ")
        rel = rel.strip().removeprefix("*")
        if not sep or len(digest) != 64 or not rel or any(c not in "0123456789abcdef" for c in digest):
            raise ManifestError(f"{where}:{number}: not a '<sha256>  <path>' line; regenerate the manifest")
        entries[rel] = digest
    return entries


def read_sums(root: Path) -> dict[str, str] | None:
    """The manifest of ``root``, or None when it has none."""
    path = Path(root) / SUMS
    if not path.is_file():
        return None
    return parse_sums(path.read_text(encoding="utf-8"), path)


def mismatches(root: Path, entries: Mapping[str, str]) -> dict[str, str]:
    """``{relative path: 'missing' | 'changed'}`` for every listed file that is absent or differs."""
    found: dict[str, str] = {}
    for rel, digest in entries.items():
        path = Path(root) / rel
        if not path.is_file():
            found[rel] = "missing"
        elif file_sha256(path) != digest:
            found[rel] = "changed"
    return found


def verify(root: Path, read: Iterable[Path]) -> None:
    """Refuse a dataset whose ``read`` files are unlisted, or whose listed files are changed.

    Every file the caller is about to read must be listed and match; every other listed file
    must match when present (a partial download may lack e.g. ``embeddings/``).
    """
    root = Path(root)
    entries = read_sums(root)
    if entries is None:
        return
    needed = {Path(p).relative_to(root).as_posix() for p in read}
    unlisted = sorted(needed - set(entries))
    if unlisted:
        raise ManifestError(
            f"{root / unlisted[0]}: not listed in {root / SUMS}; the dataset was altered after it was built "
            "(rebuild it with `execretrieval build`, or restore the original files)"
        )
    present = {rel: d for rel, d in entries.items() if rel in needed or (root / rel).is_file()}
    bad = mismatches(root, present)
    if bad:
        rel = sorted(bad)[0]
        raise ManifestError(
            f"{root / rel}: {'missing' if bad[rel] == 'missing' else 'does not match its SHA256SUMS digest'}"
            f"{'' if len(bad) == 1 else f' ({len(bad)} files in all)'}; the dataset was altered after it was built "
            "(rebuild it with `execretrieval build`, or restore the original files)"
        )


def fingerprint(root: Path, read: Iterable[Path]) -> str:
    """The data fingerprint: sha256 of the manifest lines of the ``read`` files (see the module docstring)."""
    root = Path(root)
    listed = read_sums(root) or {}
    rels = [Path(p).relative_to(root).as_posix() for p in read]
    return fingerprint_of_entries({rel: listed.get(rel) or file_sha256(root / rel) for rel in rels}, rels)


def fingerprint_of_entries(entries: Mapping[str, str], data: Iterable[str]) -> str:
    """The same fingerprint from manifest entries alone (e.g. a release's ``SHA256SUMS`` read from the Hub)."""
    return hashlib.sha256("".join(f"{entries[rel]}  {rel}\n" for rel in sorted(data)).encode("utf-8")).hexdigest()


def sums_sha256(root: Path) -> str:
    """sha256 of ``root``'s ``SHA256SUMS``: names every byte of the folder (not only its data)."""
    return file_sha256(Path(root) / SUMS)
