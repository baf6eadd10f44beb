"""``execretrieval hub pin SHA``: make a pushed commit the release the task pins.

Reads the release's ``SHA256SUMS`` and ``release_info.json`` at that commit from the Hub (a tag or
branch is resolved to its commit: mteb pins commits), and writes ``dataset/release.json`` (or
``$EXECRETRIEVAL_RELEASE``, or ``--release-file``): the repository, the commit sha, the release's
fingerprint (the sha256 of its ``SHA256SUMS``) and the fingerprint of the dataset it was staged
from. From then on the task's metadata names that commit, ``--data hub`` loads it, and results on
the released data are filed under it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..dataset.manifest import SUMS
from ..dataset.release import Release, write_release
from ..errors import ExecRetrievalError
from .push import REPO_TYPE
from .stage import RELEASE_INFO

if TYPE_CHECKING:
    from huggingface_hub import HfApi


class PinError(ExecRetrievalError):
    """The commit cannot be pinned; the message says why."""


def pin(repo_id: str, revision: str, release_file: Path | None = None, api: HfApi | None = None) -> tuple[Release, Path]:
    """Resolve ``revision`` on the Hub, read its manifest and release info, write the release file."""
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

    api = api or HfApi()
    try:
        sha = api.repo_info(repo_id, repo_type=REPO_TYPE, revision=revision).sha
        assert sha is not None
        sums = Path(hf_hub_download(repo_id, SUMS, repo_type=REPO_TYPE, revision=sha)).read_bytes()
        info = json.loads(Path(hf_hub_download(repo_id, RELEASE_INFO, repo_type=REPO_TYPE, revision=sha)).read_text("utf-8"))
    except EntryNotFoundError:
        raise PinError(f"{repo_id}@{revision}: no {SUMS} or {RELEASE_INFO}; it is not a release pushed by "
                       "`execretrieval hub push`") from None
    except (HfHubHTTPError, OSError) as exc:
        raise PinError(f"{repo_id}@{revision}: cannot read it from the Hub ({type(exc).__name__}: "
                       f"{' '.join(str(exc).split())[:200]})") from None
    release = Release(repo_id=repo_id, revision=sha, fingerprint=hashlib.sha256(sums).hexdigest(),
                      source_fingerprint=info.get("source_fingerprint"))
    return release, write_release(release, release_file)
