"""The official release the task pins, and the ``dataset_revision`` every result is filed under.

``release.json`` (beside this module, written by the Hub release step) names the Hub dataset
repository, the commit sha of the official release (mteb's convention: a commit, never a movable
tag) and the fingerprint of its data (``dataset.manifest``). It holds ``null``s until the first
release is pushed.

mteb files results by model and revision and merges or skips by ``dataset_revision``, so that value
must name the data exactly: the release's commit sha for the official data (loaded from the Hub,
or a local copy whose fingerprint equals the release's), and ``local-<first 12 hex of the
fingerprint>`` for anything else (a subset, a rebuild, edited tasks). Results on different data
then never merge, and mteb never skips a run as "already in cache" because a different dataset
was evaluated before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

RELEASE_FILE = Path(__file__).with_name("release.json")
LOCAL_PREFIX = "local-"
UNRELEASED = "unreleased"


@dataclass(frozen=True)
class Release:
    repo_id: str
    revision: str | None
    """The Hub commit sha of the official release (None before the first release)."""
    fingerprint: str | None
    """The fingerprint of the released data (sha256 of its ``SHA256SUMS``)."""


@cache
def pinned_release(path: Path = RELEASE_FILE) -> Release:
    blob = json.loads(path.read_text(encoding="utf-8"))
    return Release(repo_id=blob["repo_id"], revision=blob.get("revision"), fingerprint=blob.get("fingerprint"))


def dataset_revision(fingerprint: str, release: Release | None = None) -> str:
    """The release's commit for the official data, ``local-<12 hex>`` for any other dataset."""
    release = release or pinned_release()
    if release.revision and release.fingerprint == fingerprint:
        return release.revision
    return LOCAL_PREFIX + fingerprint[:12]
