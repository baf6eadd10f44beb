"""Test-wide environment: offline Hugging Face, and a private datasets cache per session.

`datasets` names the cache of a local dataset directory after its basename and its configs,
not its content, so a rebuilt dataset at a reused path would be read back stale from the
machine's shared cache. The variables must be set before `datasets` is first imported.
"""

import atexit
import os
import shutil
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
_HF_DATASETS_CACHE = tempfile.mkdtemp(prefix="execretrieval-tests-hf-datasets-")
os.environ["HF_DATASETS_CACHE"] = _HF_DATASETS_CACHE
atexit.register(shutil.rmtree, _HF_DATASETS_CACHE, ignore_errors=True)
