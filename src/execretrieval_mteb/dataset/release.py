"""The official release the task pins, and the ``dataset_revision`` every result is filed under.

``release.json`` (beside this module, written by the Hub release step: ``execretrieval hub push
--yes --pin`` or ``execretrieval hub pin SHA``) names the Hub dataset repository, the commit sha
of the official release (mteb's convention: a commit, never a movable tag), the fingerprint of
its data (``dataset.manifest``: one definition wherever the data lives, so the release and the
dataset directory it was staged from, e.g. the bundled dataset whose data files the release carries
byte for byte, have the same one) and the fingerprint of that source directory
(``source_fingerprint``, equal to it for a release ``hub stage`` made). It holds ``null``s until the first release is
pushed. ``$EXECRETRIEVAL_RELEASE`` names another release file (tests, or a private mirror of the
release); the package's own file is used when it is unset.

mteb files results by model and revision and merges or skips by ``dataset_revision``, so that value
must name the data exactly: the release's commit sha for the official data (loaded from the Hub,
a full copy of the release, or the directory it was staged from, e.g. the bundled dataset), and
``local-<first 12 hex of the fingerprint>`` for anything else (a subset, a rebuild, edited tasks).
Results computed on the official data before it was pinned carry ``local-<12 hex>`` of the same
fingerprint; ``refiled_revision`` files them under the commit once it is pinned.
Results on different data then never merge, and mteb never skips a run as "already in cache"
because a different dataset was evaluated before.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from ..errors import ExecRetrievalError

RELEASE_FILE = Path(__file__).with_name("release.json")
ENV_VAR = "EXECRETRIEVAL_RELEASE"
LOCAL_PREFIX = "local-"
UNRELEASED = "unreleased"


class ReleaseError(ExecRetrievalError):
    """The release file is unreadable or malformed; the message names it and the fix."""


@dataclass(frozen=True)
class Release:
    repo_id: str
    revision: str | None
    """The Hub commit sha of the official release (None before the first release)."""
    fingerprint: str | None
    """The fingerprint of the released data (``dataset.manifest.fingerprint``; verified by ``hub pin``)."""
    source_fingerprint: str | None = None
    """The fingerprint of the dataset directory the release was staged from (same data files)."""

    def is_official(self, fingerprint: str) -> bool:
        """Whether ``fingerprint`` names the released data (the release itself or its source)."""
        return bool(self.revision) and fingerprint in {self.fingerprint, self.source_fingerprint} - {None}


def release_file() -> Path:
    """``$EXECRETRIEVAL_RELEASE`` when set, else the package's ``release.json``."""
    override = os.environ.get(ENV_VAR)
    return Path(override).expanduser() if override else RELEASE_FILE


def read_release(path: Path) -> Release:
    try:
        blob = json.loads(Path(path).read_text(encoding="utf-8"))
        return Release(
            repo_id=str(blob["repo_id"]), revision=blob.get("revision"), fingerprint=blob.get("fingerprint"),
            source_fingerprint=blob.get("source_fingerprint"),
        )
    except FileNotFoundError:
        raise ReleaseError(f"{path}: release file missing; unset ${ENV_VAR} or reinstall the package") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ReleaseError(f"{path}: not a release file ({type(exc).__name__}: {exc}); restore it or re-pin with "
                           "`execretrieval hub pin`") from None


@cache
def _pinned(path: Path) -> Release:
    return read_release(path)


def pinned_release(path: Path | None = None) -> Release:
    """The release the task pins (read once per file)."""
    return _pinned(path or release_file())


def write_release(release: Release, path: Path | None = None) -> Path:
    """Write the release file (atomically) and forget the cached copy."""
    from .io import write_text_atomic

    path = path or release_file()
    write_text_atomic(path, json.dumps(asdict(release), indent=1, sort_keys=True) + "\n")
    _pinned.cache_clear()
    return path


def refiled_revision(revision: str, fingerprint: str | None, release: Release | None = None) -> str:
    """``revision`` of a result, re-filed under the pinned commit when its data is the release's.

    A result on the official data computed before the pin says ``local-<12 hex>``; with the full
    ``fingerprint`` it recorded equal to the release's (and the revision naming that fingerprint),
    it belongs to the release's commit. Anything else keeps its revision.
    """
    release = release or pinned_release()
    if fingerprint and release.is_official(fingerprint) and revision in {LOCAL_PREFIX + fingerprint[:12], release.revision}:
        assert release.revision is not None
        return release.revision
    return revision


def dataset_revision(fingerprint: str, release: Release | None = None) -> str:
    """The release's commit for the official data, ``local-<12 hex>`` for any other dataset."""
    release = release or pinned_release()
    if release.is_official(fingerprint):
        assert release.revision is not None
        return release.revision
    return LOCAL_PREFIX + fingerprint[:12]
