"""Build the wild corpus: stream every source's kept functions, deduplicated, into ``wild_corpus.jsonl``.

Output folder (written beside it as a temporary folder and renamed into place, so a reader never
sees half a corpus; an existing folder is replaced only if it is a wild corpus this builder wrote):

- ``wild_corpus.jsonl``: one row per function, in traversal order (``sources``), keys sorted:
  ``corpus_id`` (``w_`` + the first 16 hex digits of the code's sha256: stable whatever else is
  installed), ``code``, ``function_name``, ``package``, ``version``, ``file`` (relative to the
  source's root), ``line`` (of ``def``), ``license`` (the family: MIT, BSD, BSD-2-Clause,
  BSD-3-Clause, Apache-2.0, PSF-2.0) and ``license_declared`` (what the metadata says);
- ``sources.json``: every source seen, kept or excluded, with its licence and counts (files,
  functions, kept, rejected by reason, duplicates by kind);
- ``README.md``: the card (``card``), listing every source and licence;
- ``SHA256SUMS`` over the three; its sha256 is the corpus fingerprint.

In test files, functions named ``test*`` are test cases (they take fixtures and return nothing),
not implementations: rejected as ``test_case``; the helpers around them are kept.

A function is a duplicate when an earlier one (or one of the benchmark's snippets, seeded first)
has the same exact key or the same whitespace-insensitive key (``dedup``): the first in traversal
order wins. Memory holds only 16-byte keys, so a million functions stream through in a few hundred
MB; nothing in the output depends on time, machine or absolute paths.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ...dataset import manifest
from ...errors import ExecRetrievalError
from .card import render_card
from .dedup import exact_key, whitespace_key
from .extract import Function, Grammar, Rejection, decode, functions
from .sources import Interpreter, Source, all_sources, is_test_file, sandbox_interpreter

BUILDER_VERSION = 2
WILD_CORPUS, SOURCES, CARD = "wild_corpus.jsonl", "sources.json", "README.md"
ID_PREFIX = "w_"


class WildBuildError(ExecRetrievalError):
    """The wild corpus cannot be written where asked."""


@dataclass
class SourceStats:
    package: str
    version: str
    license: str | None
    license_declared: str
    license_field: str
    files: int = 0
    functions: int = 0
    kept: int = 0
    closed: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    duplicates: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package, "version": self.version, "license": self.license,
            "license_declared": self.license_declared, "license_field": self.license_field,
            "files": self.files, "functions": self.functions, "kept": self.kept, "closed": self.closed,
            "rejected": dict(sorted(self.rejected.items())), "duplicates": dict(sorted(self.duplicates.items())),
        }


@dataclass(frozen=True)
class WildBuild:
    root: Path
    functions: int
    sources: tuple[SourceStats, ...]
    seconds: float
    bytes: int


def wild_id(code: str) -> str:
    return ID_PREFIX + exact_key(code).hex()[:16]


def build_wild(
    out: Path,
    *,
    benchmark_codes: Iterable[str] = (),
    interpreter: Interpreter | None = None,
    site_dirs: Sequence[Path] | None = None,
    packages: Iterable[str] | None = None,
    max_functions: int | None = None,
    progress: bool = False,
) -> WildBuild:
    """Build the corpus into ``out`` (see the module docstring).

    ``packages`` keeps only the named sources (``python-stdlib`` or distribution names), and
    ``max_functions`` stops after that many kept functions: both for small pools (tests, CI).
    """
    started = time.perf_counter()
    out = Path(out)
    _check_replaceable(out)
    interpreter = interpreter or sandbox_interpreter()
    grammar = Grammar(tuple(int(x) for x in interpreter.version.split(".")[:2]),  # type: ignore[arg-type]
                      interpreter.builtins, interpreter.stdlib_modules)
    wanted = None if packages is None else set(packages)
    seen_exact: set[bytes] = set()
    seen_ws: set[bytes] = set()
    for code in benchmark_codes:
        seen_exact.add(exact_key(code))
        seen_ws.add(whitespace_key(code))
    benchmark_exact, benchmark_ws = frozenset(seen_exact), frozenset(seen_ws)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    stats: list[SourceStats] = []
    kept = 0
    try:
        with open(tmp / WILD_CORPUS, "w", encoding="utf-8", newline="\n") as sink:
            bar = tqdm(desc="wild functions", unit="fn", disable=not progress)
            for source in all_sources(interpreter, site_dirs):
                if wanted is not None and source.package not in wanted:
                    continue
                s = SourceStats(source.package, source.version, source.licence.family, source.licence.name,
                                source.licence.field)
                stats.append(s)
                if not source.licence.permissive or (max_functions is not None and kept >= max_functions):
                    continue
                for rel in source.files:
                    if max_functions is not None and kept >= max_functions:
                        break
                    for fn in _file_functions(source, rel, grammar, s):
                        exact, ws = exact_key(fn.code), whitespace_key(fn.code)
                        if exact in seen_exact or ws in seen_ws:
                            kind = "benchmark" if exact in benchmark_exact or ws in benchmark_ws else (
                                "exact" if exact in seen_exact else "whitespace")
                            s.duplicates[kind] += 1
                            continue
                        seen_exact.add(exact)
                        seen_ws.add(ws)
                        sink.write(_row(fn, source, rel))
                        s.kept += 1
                        s.closed += fn.closed
                        kept += 1
                        bar.update(1)
                        if max_functions is not None and kept >= max_functions:
                            break
            bar.close()
        _write_json(tmp / SOURCES, {"builder_version": BUILDER_VERSION, "interpreter": interpreter.version,
                                    "functions": kept, "sources": [s.to_json() for s in stats]})
        (tmp / CARD).write_text(render_card(stats, kept, interpreter.version), encoding="utf-8")
        (tmp / manifest.SUMS).write_text(manifest.render_sums(tmp), encoding="utf-8")
        for path in tmp.iterdir():
            os.chmod(path, 0o644)
        os.chmod(tmp, 0o755)
        if out.exists():
            shutil.rmtree(out)  # _check_replaceable: a wild corpus this builder wrote
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(p.stat().st_size for p in out.iterdir())
    return WildBuild(out, kept, tuple(stats), time.perf_counter() - started, size)


def _file_functions(source: Source, rel: str, grammar: Grammar, stats: SourceStats) -> Iterable[Function]:
    try:
        data = (source.root / rel).read_bytes()
    except OSError:
        stats.rejected["unreadable"] += 1
        return
    stats.files += 1
    text = decode(data)
    if text is None:
        stats.rejected["undecodable_file"] += 1
        return
    in_tests = is_test_file(rel)
    for item in functions(text, grammar, rel):
        if in_tests and isinstance(item, Function) and item.name.startswith("test"):
            stats.functions += 1
            stats.rejected["test_case"] += 1
        elif isinstance(item, Rejection):
            if item is Rejection.UNPARSABLE:
                stats.rejected["unparsable_file"] += 1
                continue
            stats.functions += 1
            stats.rejected[item.value] += 1
        else:
            stats.functions += 1
            yield item


def _row(fn: Function, source: Source, rel: str) -> str:
    row = {
        "corpus_id": wild_id(fn.code), "code": fn.code, "function_name": fn.name, "package": source.package,
        "version": source.version, "file": rel, "line": fn.line, "license": source.licence.family,
        "license_declared": source.licence.name, "free_names": list(fn.free_names), "closed": fn.closed,
    }
    return json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _check_replaceable(out: Path) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise WildBuildError(f"{out}: exists and is not a folder; choose another output for the wild corpus")
    names = {p.name for p in out.iterdir()}
    if names and not ({WILD_CORPUS, SOURCES} <= names and names <= {WILD_CORPUS, SOURCES, CARD, manifest.SUMS}):
        raise WildBuildError(f"{out}: a folder that is not a wild corpus; choose an empty or new folder")
