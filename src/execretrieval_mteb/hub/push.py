"""``execretrieval hub push DIR --repo-id ORG/NAME``: a staged release as one commit on the Hub.

Without ``--yes`` nothing is written anywhere: ``plan_push`` compares the staged files (verified
against their ``SHA256SUMS``) with the branch on the Hub and ``PushPlan.render`` lists every file
with its size and what would happen to it remotely (new, changed, unchanged, deleted: a file on
the branch that the release no longer has), then the tag, and any reason the push would be refused.
With ``--yes``, ``push``:

1. checks every precondition before writing anything (the repository id, the token, the staged
   folder, the branch, the tag: an existing tag is acceptable only when it already names the
   branch head and the head holds exactly the release, i.e. the push changes nothing), then
   creates the dataset repository (and the branch) if missing;
2. reads the branch head and makes one ``create_commit`` through huggingface_hub with that head as
   ``parent_commit``: every staged file (huggingface_hub uploads large and binary ones through its
   standard LFS/Xet path first, and skips unchanged ones) and a deletion for each file the release
   no longer has. The Hub applies a commit atomically, and uploaded objects are invisible until
   committed, so a failure at any point leaves the branch at its old commit;
3. retries transient failures (connection errors, timeouts, 429, 5xx). Before each retry it reads
   the branch head again: unchanged, the commit is retried on the same parent; moved to a commit
   whose files are exactly the release, the lost answer was a success; moved elsewhere, someone
   else pushed and it stops (the parent check would refuse the commit anyway);
4. checks the new commit's file list against the staged files, tags it (``--tag``; an existing
   tag is never moved, and was checked in step 1) and returns its sha, the value to pin.

The token comes from huggingface_hub's usual sources (``HF_TOKEN``, ``hf auth login``); it is
passed to huggingface_hub and never printed or written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dataset import manifest
from ..errors import ExecRetrievalError
from .repo_id import check_repo_id
from .stage import release_info, staged_files

if TYPE_CHECKING:
    from huggingface_hub import HfApi

REPO_TYPE = "dataset"
DEFAULT_BRANCH = "main"
HUB_OWNED = frozenset({".gitattributes"})
"""Files the Hub creates in every repository; a release never deletes them."""
RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0)


class PushError(ExecRetrievalError):
    """The push cannot go ahead or did not complete; the message says what to do."""


@dataclass(frozen=True)
class FileChange:
    path: str
    size: int | None
    """Local size (remote size for a deletion)."""
    status: str
    """``new``, ``changed``, ``unchanged``, ``delete`` or ``unknown`` (the Hub could not be read)."""


@dataclass(frozen=True)
class Remote:
    repo_exists: bool
    branch_exists: bool
    head: str | None
    """The branch's commit (or main's, for a branch to be created from it)."""
    files: dict[str, tuple[int, str, bool]] | None
    """path -> (size, oid, is_lfs): the git blob id of a regular file, the sha256 of an LFS one; None: unreadable."""
    problem: str | None = None


@dataclass(frozen=True)
class PushPlan:
    root: Path
    repo_id: str
    branch: str
    changes: tuple[FileChange, ...]
    remote: Remote
    fingerprint: str
    """The data fingerprint (``dataset.manifest``), as ``hub pin`` will record it."""
    tag: str | None = None
    tag_at: str | None = None
    """The commit ``tag`` already names on the Hub (None: the tag is new, or the Hub could not be read)."""

    @property
    def refusal(self) -> str | None:
        """Why ``push`` would refuse this plan before committing (None: it would go ahead)."""
        return tag_refusal(self.tag, self.tag_at, self.remote, self.changes)

    @property
    def staged(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.status != "delete")

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for change in self.changes:
            out[change.status] = out.get(change.status, 0) + 1
        return out

    def render(self) -> str:
        """The dry run's listing: every staged file with its size and its fate, then a summary."""
        remote = self.remote
        if remote.problem:
            where = f"the Hub could not be read ({remote.problem}); remote changes unknown"
        elif not remote.repo_exists:
            where = f"repository {self.repo_id} does not exist: it would be created"
        elif not remote.branch_exists:
            where = f"branch {self.branch} does not exist: it would be created from {DEFAULT_BRANCH} at {remote.head}"
        else:
            where = f"branch {self.branch} at {remote.head} ({len(remote.files or {})} files)"
        lines = [f"push {self.root} -> datasets/{self.repo_id} (branch {self.branch})", f"remote: {where}"]
        width = max(len("unchanged"), *(len(c.status) for c in self.changes))
        for change in self.changes:
            size = "-" if change.size is None else f"{change.size:,}"
            lines.append(f"  {change.status.ljust(width)}  {size.rjust(13)}  {change.path}")
        total = sum(c.size or 0 for c in self.staged)
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts().items()))
        lines.append(f"{len(self.staged)} staged files, {total:,} bytes ({counts}); data fingerprint {self.fingerprint}")
        if self.tag:
            lines.append(f"tag {self.tag}: " + ("new" if self.tag_at is None else f"exists at {self.tag_at}"))
        if self.refusal:
            lines.append(f"the push would be refused: {self.refusal}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class PushResult:
    sha: str
    commit_url: str
    tag: str | None
    changes: tuple[FileChange, ...]
    attempts: int
    notes: tuple[str, ...] = field(default_factory=tuple)


def _api(api: HfApi | None) -> HfApi:
    if api is not None:
        return api
    from huggingface_hub import HfApi

    return HfApi()


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP client's network-level errors (huggingface_hub 2 uses httpx2, 1.x httpx)."""
    import importlib

    found = []
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def transient(exc: BaseException) -> bool:
    """A failure worth retrying: network trouble, a timeout, 429 or a 5xx (anywhere in the cause chain)."""
    from huggingface_hub.errors import HfHubHTTPError

    network = _transport_errors()
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, network):
            return True
        if isinstance(exc, HfHubHTTPError) and exc.response is not None:
            status = exc.response.status_code
            if status == 429 or status >= 500:
                return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"


def read_remote(api: HfApi, repo_id: str, branch: str) -> Remote:
    """The branch's head and files (falling back to main for a branch that does not exist yet)."""
    from huggingface_hub import RepoFile
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    try:
        api.repo_info(repo_id, repo_type=REPO_TYPE)
    except RepositoryNotFoundError:
        return Remote(False, False, None, {})
    branch_exists = True
    revision = branch
    try:
        head = api.repo_info(repo_id, repo_type=REPO_TYPE, revision=branch).sha
    except RevisionNotFoundError:
        branch_exists, revision = False, DEFAULT_BRANCH
        head = api.repo_info(repo_id, repo_type=REPO_TYPE, revision=DEFAULT_BRANCH).sha
    files = {
        f.path: (f.size, f.lfs.sha256 if f.lfs else f.blob_id, f.lfs is not None)
        for f in api.list_repo_tree(repo_id, repo_type=REPO_TYPE, revision=head or revision, recursive=True)
        if isinstance(f, RepoFile)
    }
    return Remote(True, branch_exists, head, files)


def _changes(root: Path, sums: dict[str, str], remote: Remote) -> tuple[FileChange, ...]:
    from huggingface_hub.utils.sha import git_hash

    changes = []
    for rel in sorted(sums):
        size = (root / rel).stat().st_size
        if remote.files is None:
            status = "unknown"
        elif rel not in remote.files:
            status = "new"
        else:
            remote_size, oid, is_lfs = remote.files[rel]
            local = sums[rel] if is_lfs else git_hash((root / rel).read_bytes())
            status = "unchanged" if (remote_size, oid) == (size, local) else "changed"
        changes.append(FileChange(rel, size, status))
    for rel, (size, _, _) in sorted((remote.files or {}).items()):
        if rel not in sums and rel not in HUB_OWNED:
            changes.append(FileChange(rel, size, "delete"))
    return tuple(changes)


def tag_refusal(tag: str | None, tag_at: str | None, remote: Remote, changes: Sequence[FileChange]) -> str | None:
    """Why an existing ``tag`` stops the push (it would have to move), or None."""
    if not tag or tag_at is None:
        return None
    if tag_at == remote.head and remote.branch_exists and all(c.status == "unchanged" for c in changes):
        return None  # the push changes nothing and the tag already names the result
    return f"tag {tag} already points to {tag_at} (tags are never moved); choose another tag"


def tag_target(api: HfApi, repo_id: str, tag: str, token: str | bool | None = None) -> str | None:
    """The commit ``tag`` names on the Hub, or None when it has no such tag (or no such repository)."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        refs = api.list_repo_refs(repo_id, repo_type=REPO_TYPE, token=token)
    except RepositoryNotFoundError:
        return None
    return next((t.target_commit for t in refs.tags if t.name == tag), None)


def _data_fingerprint(root: Path) -> str:
    """The data fingerprint of a staged release (the staged data files are the source's bytes)."""
    from ..dataset.io import study_files

    return manifest.fingerprint(root, study_files(root))


def plan_push(root: Path, repo_id: str, branch: str = DEFAULT_BRANCH, api: HfApi | None = None,
              tag: str | None = None) -> PushPlan:
    """What a push would do; reads the Hub (anonymously if no token) and writes nothing."""
    check_repo_id(repo_id)
    root = Path(root)
    sums = staged_files(root)
    api = _api(api)
    tag_at = None
    try:
        remote = read_remote(api, repo_id, branch)
        if tag and remote.repo_exists:
            tag_at = tag_target(api, repo_id, tag)
    except Exception as exc:  # noqa: BLE001 - any failure to read the Hub only makes the remote side unknown
        remote = Remote(False, False, None, None, _one_line(exc))
    return PushPlan(root, repo_id, branch, _changes(root, sums, remote), remote, _data_fingerprint(root), tag, tag_at)


def _require_token() -> str:
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise PushError("no Hugging Face token: log in with `hf auth login` or set HF_TOKEN (a token with write access)")
    return token


def _retrying(what: str, action: Callable[[], Any], delays: Sequence[float], attempts: list[int]) -> Any:
    for delay in (*delays, None):
        attempts[0] += 1
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - filtered by `transient`
            if delay is None or not transient(exc):
                raise PushError(f"{what} failed ({_one_line(exc)}); run the push again") from None
            time.sleep(delay)
    raise AssertionError("unreachable")


def push(
    root: Path,
    repo_id: str,
    branch: str = DEFAULT_BRANCH,
    tag: str | None = None,
    message: str | None = None,
    api: HfApi | None = None,
    retry_delays: Sequence[float] = RETRY_DELAYS,
    preconditions: Callable[[], None] | None = None,
) -> PushResult:
    """Upload the staged release as one commit on ``branch``; returns the commit to pin.

    ``preconditions`` (e.g. that the release file can be written, for ``--pin``) runs with the
    other checks, before anything is written to the Hub.
    """
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    check_repo_id(repo_id)
    root = Path(root)
    token = _require_token()
    api = _api(api)
    sums = staged_files(root)
    info = release_info(root)
    fingerprint = _data_fingerprint(root)
    attempts = [0]
    before = _retrying("reading the repository", lambda: read_remote(api, repo_id, branch), retry_delays, attempts)
    if tag and before.repo_exists:
        tag_at = _retrying("reading the tags", lambda: tag_target(api, repo_id, tag, token), retry_delays, attempts)
        refusal = tag_refusal(tag, tag_at, before, _changes(root, sums, before))
        if refusal:
            raise PushError(f"{refusal}; nothing was pushed")
    if preconditions is not None:
        preconditions()
    _retrying("creating the repository", lambda: api.create_repo(repo_id, repo_type=REPO_TYPE, exist_ok=True, token=token),
              retry_delays, attempts)
    if branch != DEFAULT_BRANCH:
        _retrying(f"creating branch {branch}", lambda: api.create_branch(
            repo_id, branch=branch, repo_type=REPO_TYPE, exist_ok=True, token=token), retry_delays, attempts)
    remote = _retrying("reading the branch", lambda: read_remote(api, repo_id, branch), retry_delays, attempts)
    parent = remote.head
    changes = _changes(root, sums, remote)
    message = message or (f"ExecRetrieval release: {info.get('queries')} queries, {info.get('snippets')} snippets, "
                          f"fingerprint {fingerprint[:12]}")
    description = (f"Data fingerprint: {fingerprint}\n"
                   f"SHA256SUMS sha256: {manifest.sums_sha256(root)}\n"
                   f"Source dataset fingerprint: {info.get('source_fingerprint')}\n")
    result: Any = None
    notes: list[str] = []
    for delay in (*retry_delays, None):
        attempts[0] += 1
        operations: list[Any] = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(root / rel)) for rel in sorted(sums)]
        operations += [CommitOperationDelete(path_in_repo=c.path) for c in changes if c.status == "delete"]
        try:
            result = api.create_commit(
                repo_id, operations, commit_message=message, commit_description=description, repo_type=REPO_TYPE,
                revision=branch, parent_commit=parent, token=token,
            )
            break
        except Exception as exc:  # noqa: BLE001 - filtered by `transient`
            if delay is None or not transient(exc):
                raise PushError(f"the commit failed ({_one_line(exc)}); {branch} is unchanged; run the push again") from None
            time.sleep(delay)
            now = _retrying("reading the branch", lambda: read_remote(api, repo_id, branch), retry_delays, attempts)
            if now.head == parent:
                continue
            if _matches(root, sums, now):
                notes.append(f"the Hub answered {_one_line(exc)} but had made the commit; not committed twice")
                result = now
                break
            raise PushError(f"{branch} moved to {now.head} during the push (someone else pushed); "
                            "run the dry run again and push once it is what you expect") from None
    sha = result.oid if hasattr(result, "oid") else result.head
    final = _retrying("reading the new commit", lambda: read_remote(api, repo_id, sha), retry_delays, attempts)
    if not _matches(root, sums, final):
        raise PushError(f"commit {sha} on {repo_id} does not hold exactly the staged files; inspect it before pinning")
    if tag:
        _tag(api, repo_id, tag, sha, token, retry_delays, attempts)
    url = getattr(result, "commit_url", None) or f"{api.endpoint}/datasets/{repo_id}/commit/{sha}"
    return PushResult(sha, url, tag, changes, attempts[0], tuple(notes))


def _matches(root: Path, sums: dict[str, str], remote: Remote) -> bool:
    """Whether the remote tree is exactly the staged release (plus the Hub's own files)."""
    if remote.files is None:
        return False
    if set(remote.files) - HUB_OWNED != set(sums):
        return False
    return all(c.status == "unchanged" for c in _changes(root, sums, remote))


def _tag(api: HfApi, repo_id: str, tag: str, sha: str, token: str, delays: Sequence[float], attempts: list[int]) -> None:
    def existing() -> str | None:
        return tag_target(api, repo_id, tag, token)

    at = _retrying("reading the tags", existing, delays, attempts)
    if at == sha:
        return
    if at is not None:
        raise PushError(f"tag {tag} already points to {at} (tags are never moved); commit {sha} was pushed untagged, "
                        "choose another tag")

    def create() -> None:
        from huggingface_hub.errors import HfHubHTTPError

        try:
            api.create_tag(repo_id, tag=tag, revision=sha, repo_type=REPO_TYPE, token=token)
        except HfHubHTTPError as exc:
            if exc.response is None or exc.response.status_code != 409 or existing() != sha:
                raise

    _retrying(f"tagging {sha} as {tag}", create, delays, attempts)
