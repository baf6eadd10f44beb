"""Where the wild corpus lives on this machine, and building it on first use (offline).

The corpus is made from what set-up installed, so it is built here, not downloaded: on first use
(``ensure_wild``: the open task's ``load_data``, ``execretrieval run --open``) or explicitly with
``execretrieval wild build``. Its folder is named by a key of what it is made of (builder version,
the sandbox Python's version, and the name and version of every distribution of the environment),
so a changed environment gets a fresh corpus and an unchanged one is reused:

    $EXECRETRIEVAL_WILD                       a corpus folder to use as it is (built if missing), or
    $XDG_CACHE_HOME/execretrieval-mteb/wild/<key>/   (default ~/.cache/...)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from ...dataset.bundled import BUNDLED_DATASET_DIR
from ...dataset.io import load_dataset
from ...dataset.wild import WILD_CORPUS, WildCorpus, load_wild
from .build import BUILDER_VERSION, build_wild
from .sources import sandbox_interpreter, site_packages_default

ENV_VAR = "EXECRETRIEVAL_WILD"


def sources_key() -> str:
    """16 hex digits naming what a default build would read."""
    interpreter = sandbox_interpreter()
    from importlib.metadata import distributions

    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in distributions(path=[str(p) for p in site_packages_default()])})
    text = "\n".join([f"builder {BUILDER_VERSION}", f"python {interpreter.version}", *dists])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def default_wild_dir() -> Path:
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "execretrieval-mteb" / "wild" / sources_key()


def ensure_wild(root: Path | None = None, say: Callable[[str], None] = lambda _m: None,
                progress: bool = False) -> WildCorpus:
    """The wild corpus at ``root`` (default: ``default_wild_dir``), built first if it is not there."""
    root = Path(root) if root is not None else default_wild_dir()
    if not (root / WILD_CORPUS).is_file():
        say(f"building the wild corpus into {root} (first use; a few minutes on two cores, offline)")
        benchmark = load_dataset(BUNDLED_DATASET_DIR)
        built = build_wild(root, benchmark_codes=[c.code for c in benchmark.corpus], progress=progress)
        say(f"wild corpus: {built.functions:,} functions, {built.bytes / 1e6:.1f} MB, built in {built.seconds:.0f} s")
    return load_wild(root)

