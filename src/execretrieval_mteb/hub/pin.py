"""``execretrieval hub pin SHA``: make a pushed commit the release the task pins, once it verifies.

Resolves the revision on the Hub (a tag or branch becomes its commit: mteb pins commits), then
verifies every file of that commit against the commit's own ``SHA256SUMS`` before writing
anything:

- the commit's files (the Hub's tree API, ``.gitattributes`` aside) are exactly those listed;
- an LFS file's size and sha256, which the tree API reports, equal the manifest's;
- every other file (the tree API gives only its git blob id) is downloaded and hashed;
- ``release_info.json`` says ``execretrieval hub stage`` wrote the release, and the data
  fingerprint it records is the one its manifest gives.

Only then does it write ``dataset/release.json`` (or ``$EXECRETRIEVAL_RELEASE``, or
``--release-file``): the repository, the commit sha, the data fingerprint (``dataset.manifest``,
the same for the release and the dataset it was staged from) and the source's fingerprint. A
refusal leaves the release file as it was. From then on the task's metadata names that commit,
``--data hub`` loads it, and results on the released data are filed under it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dataset import manifest
from ..dataset.io import CORPUS, DISTRACTORS, EXECUTION_CACHE, QUERIES, STACKED_MUTANTS
from ..dataset.manifest import SUMS
from ..dataset.release import Release, release_file, write_release
from ..errors import ExecRetrievalError
from .push import HUB_OWNED, REPO_TYPE
from .repo_id import check_repo_id
from .stage import MARKER, RELEASE_INFO

if TYPE_CHECKING:
    from huggingface_hub import HfApi

DATA_FILES = tuple(f"data/{name}" for name in (QUERIES, CORPUS, DISTRACTORS, EXECUTION_CACHE, STACKED_MUTANTS))


class PinError(ExecRetrievalError):
    """The commit cannot be pinned; the message says why."""


def check_release_file_writable(path: Path | None = None) -> None:
    """Refuse early (before a push commits) when the release file could not be written afterwards."""
    path = Path(path or release_file())
    target = path if path.exists() else path.parent
    if not target.exists() or not os.access(target, os.W_OK):
        raise PinError(f"{path}: cannot be written, so the pushed commit could not be pinned; nothing was pushed "
                       "(set $EXECRETRIEVAL_RELEASE to a writable file, or push without --pin)")


def _verify(api: HfApi, repo_id: str, sha: str, entries: dict[str, str]) -> None:
    """Every file of the commit against its manifest (module docstring); a ``PinError`` names the first mismatch."""
    from huggingface_hub import RepoFile, hf_hub_download

    where = f"{repo_id}@{sha[:12]}"
    tree = {f.path: f for f in api.list_repo_tree(repo_id, repo_type=REPO_TYPE, revision=sha, recursive=True)
            if isinstance(f, RepoFile)}
    unlisted = sorted(set(tree) - set(entries) - HUB_OWNED - {SUMS})
    if unlisted:
        raise PinError(f"{where}: {unlisted[0]} is not listed in its {SUMS} ({len(unlisted)} such files); "
                       "not pinned: push a release staged by `execretrieval hub stage`")
    missing = sorted(set(entries) - set(tree))
    if missing:
        raise PinError(f"{where}: {missing[0]} is listed in its {SUMS} but not in the commit ({len(missing)} such "
                       "files); not pinned: push the staged release again")
    for rel in sorted(entries):
        remote = tree[rel]
        if remote.lfs is not None:
            ok = remote.lfs.sha256 == entries[rel]
        else:
            ok = manifest.file_sha256(Path(hf_hub_download(repo_id, rel, repo_type=REPO_TYPE, revision=sha))) == entries[rel]
        if not ok:
            raise PinError(f"{where}: {rel} does not match its {SUMS} digest (edited after staging); not pinned: "
                           "stage the release again and push it")


def pin(repo_id: str, revision: str, release_file: Path | None = None, api: HfApi | None = None) -> tuple[Release, Path]:
    """Resolve ``revision`` on the Hub, verify its files against its manifest, write the release file."""
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

    check_repo_id(repo_id)
    api = api or HfApi()
    try:
        sha = api.repo_info(repo_id, repo_type=REPO_TYPE, revision=revision).sha
        assert sha is not None
        sums_path = Path(hf_hub_download(repo_id, SUMS, repo_type=REPO_TYPE, revision=sha))
        entries = manifest.parse_sums(sums_path.read_text(encoding="utf-8"), f"{repo_id}@{sha[:12]}/{SUMS}")
        if RELEASE_INFO not in entries:
            raise EntryNotFoundError(f"{RELEASE_INFO} not listed")
        _verify(api, repo_id, sha, entries)
        info: dict[str, Any] = json.loads(
            Path(hf_hub_download(repo_id, RELEASE_INFO, repo_type=REPO_TYPE, revision=sha)).read_text("utf-8"))
    except EntryNotFoundError:
        raise PinError(f"{repo_id}@{revision}: no {SUMS} or {RELEASE_INFO}; it is not a release pushed by "
                       "`execretrieval hub push`") from None
    except manifest.ManifestError as exc:
        raise PinError(f"{exc}; not pinned") from None
    except (HfHubHTTPError, OSError, json.JSONDecodeError) as exc:
        raise PinError(f"{repo_id}@{revision}: cannot read it from the Hub ({type(exc).__name__}: "
                       f"{' '.join(str(exc).split())[:200]})") from None
    data = [rel for rel in DATA_FILES if rel in entries]
    if f"data/{QUERIES}" not in data or info.get(MARKER[0]) != MARKER[1]:
        raise PinError(f"{repo_id}@{sha[:12]}: not a release staged by `execretrieval hub stage` (no data/{QUERIES} "
                       f"or no stage marker in {RELEASE_INFO}); not pinned")
    fingerprint = manifest.fingerprint_of_entries(entries, data)
    recorded = info.get("data_fingerprint", fingerprint)
    if recorded != fingerprint:
        raise PinError(f"{repo_id}@{sha[:12]}: {RELEASE_INFO} records data fingerprint {str(recorded)[:12]} but its "
                       f"{SUMS} gives {fingerprint[:12]}; not pinned: stage the release again and push it")
    release = Release(repo_id=repo_id, revision=sha, fingerprint=fingerprint,
                      source_fingerprint=info.get("source_fingerprint"))
    return release, write_release(release, release_file)
