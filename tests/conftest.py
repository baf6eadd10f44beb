"""Test-wide environment: offline Hugging Face, a private Hugging Face home and datasets cache per session.

The private home keeps tests from writing the user's ``~/.cache/huggingface`` (``execretrieval run``
lays the embedded model out in the hub cache on first use).

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
_HF_HOME = tempfile.mkdtemp(prefix="execretrieval-tests-hf-home-")
os.environ["HF_HOME"] = _HF_HOME
os.environ.pop("HF_HUB_CACHE", None)
atexit.register(shutil.rmtree, _HF_HOME, ignore_errors=True)
