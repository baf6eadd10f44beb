"""A small, honest Hugging Face Hub on localhost, for testing push and pull with the real clients.

It speaks the part of the Hub's HTTP protocol that ``huggingface_hub`` and ``datasets`` use to
create a repository, commit to it and read it back (with ``HF_HUB_DISABLE_XET=1``, so large files
take the classic LFS path):

- ``POST /api/repos/create``; ``GET /api/datasets/{repo}[/revision/{rev}]`` (info with siblings);
- ``POST /api/validate-yaml`` (the card's metadata; the checks the Hub makes on the fields we use);
- ``POST /api/datasets/{repo}/preupload/{rev}`` (regular or LFS, and the remote oid of each path);
- ``POST /datasets/{repo}.git/info/lfs/objects/batch``, then a ``PUT`` of each object to the
  "storage" host and a ``POST`` to verify it;
- ``POST /api/datasets/{repo}/commit/{rev}`` (ndjson; atomic; honours ``parentCommit``);
- ``GET /api/datasets/{repo}/tree/{rev}[/{path}]``, ``POST .../paths-info/{rev}``, ``GET .../refs``;
- ``POST .../branch/{name}``, ``POST .../tag/{rev}``;
- ``HEAD``/``GET /datasets/{repo}/resolve/{rev}/{path}``: a regular file is served with ``ETag`` (its
  git blob id), ``X-Repo-Commit`` and ``Content-Length``; an LFS file answers ``302`` to the storage
  host with ``X-Linked-Etag`` (its sha256), ``X-Linked-Size`` and ``X-Repo-Commit``, as the Hub does.

The storage host (the Hub's S3/CDN) is a second port of the same server: a different origin, so
``huggingface_hub`` treats it as off-Hub (no auth header forwarded, metadata read from the redirect).

Repositories hold immutable commits (a full tree per commit), branches and tags; every write needs
``Authorization: Bearer <token>``; reads are public. ``fail_next(method, path_regex, status, times)``
injects transient errors before anything is done, ``lose_answer(method, path_regex)`` does the
request and then answers 503 (a commit made whose answer was lost), and ``requests`` records every
request (method, path, Range header) for assertions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import yaml

LFS_THRESHOLD = 10 * 1024 * 1024
"""Files at least this large are LFS (the Hub's rule for text files)."""
LFS_SUFFIXES = (".npz", ".npy", ".parquet", ".arrow", ".png", ".jpg", ".pdf", ".bin", ".safetensors", ".zip", ".gz")
"""Suffixes the Hub's default ``.gitattributes`` sends to LFS (the subset our files can have)."""
GITATTRIBUTES = "".join(f"*{s} filter=lfs diff=lfs merge=lfs -text\n" for s in LFS_SUFFIXES).encode()

SIZE_CATEGORIES = (
    "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B", "1B<n<10B",
    "10B<n<100B", "100B<n<1T", "n>1T",
)
KNOWN_LICENSES = ("apache-2.0", "mit", "cc-by-4.0", "cc-by-sa-4.0", "cc0-1.0", "bsd-3-clause", "other", "unknown")
KNOWN_TASK_CATEGORIES = (
    "text-retrieval", "text-classification", "question-answering", "text-generation", "sentence-similarity",
    "feature-extraction", "text-ranking",
)


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class Blob:
    size: int
    blob_id: str
    """git id of what git stores: the content, or the LFS pointer."""
    lfs_oid: str | None = None
    """sha256 of the content for an LFS file (None for a regular file)."""
    pointer_size: int | None = None
    content: bytes | None = None
    """The bytes of a regular file (an LFS file's bytes live in the repo's object store)."""

    @staticmethod
    def regular(data: bytes) -> Blob:
        return Blob(size=len(data), blob_id=git_blob_id(data), content=data)

    @staticmethod
    def lfs(oid: str, size: int) -> Blob:
        pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n".encode()
        return Blob(size=size, blob_id=git_blob_id(pointer), lfs_oid=oid, pointer_size=len(pointer))

    def entry(self, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "file", "oid": self.blob_id, "size": self.size, "path": path}
        if self.lfs_oid is not None:
            out["lfs"] = {"oid": self.lfs_oid, "size": self.size, "pointerSize": self.pointer_size}
        return out


@dataclass(frozen=True)
class Commit:
    sha: str
    parent: str | None
    title: str
    tree: dict[str, Blob]


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    objects: dict[str, bytes] = field(default_factory=dict)
    """LFS object store: sha256 -> content."""

    def resolve(self, revision: str) -> Commit | None:
        revision = unquote(revision)
        sha = self.branches.get(revision) or self.tags.get(revision)
        if sha is None:
            matches = [s for s in self.commits if s.startswith(revision)] if len(revision) >= 7 else []
            sha = matches[0] if len(matches) == 1 else None
        return self.commits.get(sha) if sha else None


class HubError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, extra: dict[str, str] | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code
        self.extra, self.headers = extra or {}, headers or {}


class FakeHub:
    """The server: ``with FakeHub() as hub: os.environ["HF_ENDPOINT"] = hub.endpoint``."""

    def __init__(self, token: str = "hf_fake_write_token", user: str = "tester") -> None:
        self.token = token
        self.user = user
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[tuple[str, str, str | None]] = []
        self._failures: list[list[Any]] = []
        self._lost: list[list[Any]] = []
        self._lock = threading.RLock()
        self._counter = 0
        self._servers: list[ThreadingHTTPServer] = []
        self.endpoint = ""
        self.storage = ""

    # -- lifecycle ---------------------------------------------------------------------------------------
    def start(self) -> FakeHub:
        for role in ("hub", "storage"):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, role))
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self._servers.append(server)
        self.endpoint = f"http://127.0.0.1:{self._servers[0].server_address[1]}"
        self.storage = f"http://127.0.0.1:{self._servers[1].server_address[1]}"
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- test helpers ------------------------------------------------------------------------------------
    def fail_next(self, method: str, path_regex: str, status: int = 503, times: int = 1) -> None:
        """The next ``times`` requests matching answer ``status`` without doing anything."""
        with self._lock:
            self._failures.append([method.upper(), re.compile(path_regex), status, times])

    def lose_answer(self, method: str, path_regex: str, times: int = 1) -> None:
        """The next ``times`` matching requests are carried out, then answered 503."""
        with self._lock:
            self._lost.append([method.upper(), re.compile(path_regex), times])

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        return self.repos[(repo_type, repo_id)]

    def files_at(self, repo_id: str, revision: str, repo_type: str = "dataset") -> dict[str, bytes]:
        repo = self.repo(repo_id, repo_type)
        commit = repo.resolve(revision)
        assert commit is not None, revision
        return {p: b.content if b.lfs_oid is None else repo.objects[b.lfs_oid] for p, b in commit.tree.items()}

    # -- state changes (under the lock) ------------------------------------------------------------------
    def _new_sha(self, *parts: str) -> str:
        self._counter += 1
        return hashlib.sha1("\0".join((*parts, str(self._counter))).encode()).hexdigest()

    def create_repo(self, repo_type: str, repo_id: str) -> Repo:
        if (repo_type, repo_id) in self.repos:
            raise HubError(409, "You already created this repo", extra={"url": self._repo_url(repo_type, repo_id)})
        repo = Repo(repo_type, repo_id)
        tree = {".gitattributes": Blob.regular(GITATTRIBUTES)}
        sha = self._new_sha(repo_id, "initial commit")
        repo.commits[sha] = Commit(sha, None, "initial commit", tree)
        repo.branches["main"] = sha
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def _repo_url(self, repo_type: str, repo_id: str) -> str:
        prefix = "" if repo_type == "model" else f"{repo_type}s/"
        return f"{self.endpoint}/{prefix}{repo_id}"

    def commit(self, repo: Repo, branch: str, lines: list[dict[str, Any]]) -> Commit:
        if branch not in repo.branches:
            raise HubError(404, f"Invalid rev id: {branch}", "RevisionNotFound")
        head = repo.commits[repo.branches[branch]]
        header = next((ln["value"] for ln in lines if ln.get("key") == "header"), None)
        if not header or not header.get("summary"):
            raise HubError(400, "Commit summary is required")
        parent = header.get("parentCommit")
        if parent is not None and not head.sha.startswith(parent):
            raise HubError(412, "A commit has happened since. Please refresh and try again.")
        tree = dict(head.tree)
        for line in lines:
            key, value = line.get("key"), line.get("value") or {}
            if key == "file":
                data = base64.b64decode(value["content"])
                if value["path"] == "README.md":
                    errors = validate_card_metadata(data.decode("utf-8"))
                    if errors:
                        raise HubError(400, "Invalid metadata in README.md: " + "; ".join(errors))
                tree[value["path"]] = Blob.regular(data)
            elif key == "lfsFile":
                oid = value["oid"]
                if oid not in repo.objects:
                    raise HubError(422, f"LFS object {oid} of {value['path']} was never uploaded")
                tree[value["path"]] = Blob.lfs(oid, len(repo.objects[oid]))
            elif key == "deletedFile":
                if value["path"] not in tree:
                    raise HubError(404, f"{value['path']} does not exist", "EntryNotFound")
                del tree[value["path"]]
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                for path in [p for p in tree if p.startswith(prefix)]:
                    del tree[path]
            elif key != "header":
                raise HubError(400, f"unknown commit line {key!r}")
        sha = self._new_sha(repo.repo_id, head.sha, header["summary"], json.dumps(sorted((p, b.blob_id) for p, b in tree.items())))
        commit = Commit(sha, head.sha, header["summary"], tree)
        repo.commits[sha] = commit
        repo.branches[branch] = sha
        return commit


def validate_card_metadata(content: str) -> list[str]:
    """The Hub's checks of a dataset card's YAML, for the fields this project writes."""
    match = re.match(r"^---\s*\n(.*?)\n---\s*\n", content, re.DOTALL)
    if not match:
        return ["no YAML metadata block"]
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        return [f"YAML does not parse: {exc}"]
    if not isinstance(meta, dict):
        return ["metadata is not a mapping"]
    errors = []

    def strings(key: str, allowed: tuple[str, ...] | None = None) -> None:
        value = meta.get(key)
        if value is None:
            return
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str):
                errors.append(f'"{key}" must be a string or a list of strings')
            elif allowed is not None and item not in allowed:
                errors.append(f'"{key}" has an unknown value {item!r}')

    strings("license", KNOWN_LICENSES)
    strings("task_categories", KNOWN_TASK_CATEGORIES)
    strings("size_categories", SIZE_CATEGORIES)
    strings("tags")
    strings("language")
    strings("source_datasets")
    if "pretty_name" in meta and not isinstance(meta["pretty_name"], str):
        errors.append('"pretty_name" must be a string')
    configs = meta.get("configs")
    if configs is not None:
        if not isinstance(configs, list):
            errors.append('"configs" must be a list')
        else:
            names = set()
            for config in configs:
                if not isinstance(config, dict) or not isinstance(config.get("config_name"), str):
                    errors.append('every "configs" item needs a "config_name" string')
                    continue
                if config["config_name"] in names:
                    errors.append(f'config {config["config_name"]!r} is defined twice')
                names.add(config["config_name"])
                files = config.get("data_files")
                entries = files if isinstance(files, list) else [files]
                for entry in entries:
                    ok = isinstance(entry, str) or (
                        isinstance(entry, dict) and isinstance(entry.get("split"), str)
                        and isinstance(entry.get("path"), (str, list))
                    )
                    if not ok:
                        errors.append(f'config {config["config_name"]!r}: data_files must be paths or {{split, path}} items')
    return errors


def _handler(hub: FakeHub, role: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        # -- plumbing ------------------------------------------------------------------------------------
        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return b"".join(chunks)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
                  content_type: str = "application/json") -> None:
            if getattr(self, "_lose", False) and status < 400:
                status, body, headers, content_type = 503, b'{"error": "answer lost"}', {}, "application/json"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, blob: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(blob).encode(), headers)

        def _error(self, err: HubError) -> None:
            headers = {"X-Error-Message": err.message, **err.headers}
            if err.code:
                headers["X-Error-Code"] = err.code
            blob: dict[str, Any] = {"error": err.message, **err.extra}
            if err.status == 400:
                blob["errors"] = [{"message": err.message}]
            self._json(err.status, blob, headers)

        def _authorized(self) -> None:
            if self.headers.get("Authorization") != f"Bearer {hub.token}":
                raise HubError(401, "Invalid credentials in Authorization header")

        def _dispatch(self) -> None:
            url = urlsplit(self.path)
            path = url.path
            self._lose = False
            with hub._lock:
                hub.requests.append((self.command, path, self.headers.get("Range")))
                for lost in hub._lost:
                    if lost[2] > 0 and lost[0] == self.command and lost[1].search(path):
                        lost[2] -= 1
                        self._lose = True
                        break
                for failure in hub._failures:
                    method, pattern, status, times = failure
                    if times > 0 and method == self.command and pattern.search(path):
                        failure[3] -= 1
                        self._body()
                        self._json(status, {"error": "injected transient failure"})
                        return
            try:
                if role == "storage":
                    self._storage(path)
                else:
                    self._hub(path, parse_qs(url.query))
            except HubError as err:
                self._error(err)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _dispatch

        # -- the storage host: LFS object upload and download --------------------------------------------
        def _storage(self, path: str) -> None:
            match = re.fullmatch(r"/objects/(datasets|models|spaces)/(.+)/([0-9a-f]{64})", path)
            if not match:
                raise HubError(404, "no such object")
            repo = self._repo(match.group(1)[:-1], match.group(2))
            oid = match.group(3)
            if self.command == "PUT":
                data = self._body()
                if hashlib.sha256(data).hexdigest() != oid:
                    raise HubError(400, "uploaded bytes do not match the oid")
                with hub._lock:
                    repo.objects[oid] = data
                self._send(200, b"")
                return
            if self.command not in ("GET", "HEAD") or oid not in repo.objects:
                raise HubError(404, "no such object")
            self._range(repo.objects[oid], {"ETag": f'"{oid}"'})

        def _range(self, data: bytes, headers: dict[str, str]) -> None:
            wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            if wanted and self.command == "GET":
                start = int(wanted.group(1))
                end = int(wanted.group(2)) if wanted.group(2) else len(data) - 1
                headers = {**headers, "Content-Range": f"bytes {start}-{end}/{len(data)}"}
                self._send(206, data[start:end + 1], headers, "application/octet-stream")
            else:
                self._send(200, data, headers, "application/octet-stream")

        # -- the Hub -------------------------------------------------------------------------------------
        def _repo(self, repo_type: str, repo_id: str) -> Repo:
            repo = hub.repos.get((repo_type, repo_id))
            if repo is None:
                raise HubError(404, "Repository not found", "RepoNotFound")
            return repo

        def _commit(self, repo: Repo, revision: str) -> Commit:
            commit = repo.resolve(revision)
            if commit is None:
                raise HubError(404, f"Invalid rev id: {unquote(revision)}", "RevisionNotFound")
            return commit

        def _hub(self, path: str, query: dict[str, list[str]]) -> None:
            method = self.command
            types = "(datasets|models|spaces)"
            repo_re = r"([^/]+/[^/]+)"
            if path == "/api/repos/create" and method == "POST":
                self._authorized()
                blob = json.loads(self._body())
                repo_type = blob.get("type") or "model"
                repo_id = f"{blob.get('organization') or hub.user}/{blob['name']}"
                with hub._lock:
                    hub.create_repo(repo_type, repo_id)
                self._json(200, {"url": hub._repo_url(repo_type, repo_id), "name": repo_id})
                return
            if path == "/api/validate-yaml" and method == "POST":
                blob = json.loads(self._body())
                errors = validate_card_metadata(blob.get("content", ""))
                if errors:
                    self._json(400, {"errors": [{"message": e} for e in errors]})
                else:
                    self._json(200, {"warnings": []})
                return
            if path == "/api/whoami-v2":
                self._authorized()
                self._json(200, {"type": "user", "name": hub.user, "auth": {"accessToken": {"role": "write"}}})
                return
            match = re.fullmatch(rf"/api/{types}/{repo_re}(?:/revision/(.+))?", path)
            if match and method == "GET":
                repo = self._repo(match.group(1)[:-1], match.group(2))
                commit = self._commit(repo, match.group(3) or "main")
                siblings = [{"rfilename": p} for p in sorted(commit.tree)]
                if query.get("blobs"):
                    siblings = [
                        {"rfilename": p, "size": b.size, "blobId": b.blob_id,
                         **({"lfs": {"sha256": b.lfs_oid, "size": b.size, "pointerSize": b.pointer_size}} if b.lfs_oid else {})}
                        for p, b in sorted(commit.tree.items())
                    ]
                self._json(200, {
                    "_id": repo.repo_id, "id": repo.repo_id, "author": repo.repo_id.split("/")[0], "sha": commit.sha,
                    "private": False, "gated": False, "disabled": False, "downloads": 0, "likes": 0, "tags": [],
                    "lastModified": "2026-11-30T00:00:00.000Z", "createdAt": "2026-11-30T00:00:00.000Z",
                    "siblings": siblings,
                })
                return
            match = re.fullmatch(rf"/api/{types}/{repo_re}/(preupload|commit|paths-info|tree|branch|tag|refs)(?:/(.*))?", path)
            if match:
                repo = self._repo(match.group(1)[:-1], match.group(2))
                route = {"preupload": self._preupload, "commit": self._commit_route, "paths-info": self._paths_info,
                         "tree": self._tree, "branch": self._branch, "tag": self._tag, "refs": self._refs}
                route[match.group(3)](repo, match.group(4) or "", query)
                return
            match = re.fullmatch(rf"/{types}/{repo_re}\.git/info/lfs/objects/batch", path)
            if match and method == "POST":
                self._lfs_batch(self._repo(match.group(1)[:-1], match.group(2)), match.group(1))
                return
            match = re.fullmatch(rf"/{types}/{repo_re}\.git/info/lfs/objects/verify", path)
            if match and method == "POST":
                self._authorized()
                repo = self._repo(match.group(1)[:-1], match.group(2))
                blob = json.loads(self._body())
                if repo.objects.get(blob["oid"]) is None or len(repo.objects[blob["oid"]]) != blob["size"]:
                    raise HubError(422, "object not uploaded")
                self._json(200, {})
                return
            match = re.fullmatch(rf"/{types}/{repo_re}/resolve/([^/]+)/(.+)", path)
            if match and method in ("GET", "HEAD"):
                self._resolve(self._repo(match.group(1)[:-1], match.group(2)), match.group(1), match.group(3), unquote(match.group(4)))
                return
            raise HubError(404, f"fake hub: no route for {method} {path}")

        def _preupload(self, repo: Repo, revision: str, query: dict[str, list[str]]) -> None:
            self._authorized()
            commit = self._commit(repo, revision)
            files = json.loads(self._body())["files"]
            out = []
            for item in files:
                sample = base64.b64decode(item["sample"])
                lfs = item["size"] >= LFS_THRESHOLD or item["path"].endswith(LFS_SUFFIXES) or b"\0" in sample
                remote = commit.tree.get(item["path"])
                oid = None if remote is None else (remote.lfs_oid or remote.blob_id)
                out.append({"path": item["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid})
            self._json(200, {"files": out, "commitOid": commit.sha})

        def _commit_route(self, repo: Repo, revision: str, query: dict[str, list[str]]) -> None:
            self._authorized()
            if query.get("create_pr"):
                raise HubError(400, "pull requests are not supported by the fake hub")
            lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
            with hub._lock:
                commit = hub.commit(repo, unquote(revision), lines)
            self._json(200, {
                "success": True, "commitOid": commit.sha, "pullRequestUrl": None,
                "commitUrl": f"{hub._repo_url(repo.repo_type, repo.repo_id)}/commit/{commit.sha}",
            })

        def _paths_info(self, repo: Repo, revision: str, query: dict[str, list[str]]) -> None:
            commit = self._commit(repo, revision)
            body = self._body().decode()
            if self.headers.get("Content-Type", "").startswith("application/json"):
                paths = json.loads(body).get("paths", [])
            else:
                paths = parse_qs(body).get("paths", [])
            out = []
            for wanted in paths:
                wanted = wanted.strip("/")
                if wanted in commit.tree:
                    out.append(commit.tree[wanted].entry(wanted))
                elif any(p.startswith(wanted + "/") for p in commit.tree):
                    out.append(_folder(wanted, commit))
            self._json(200, out)

        def _tree(self, repo: Repo, rest: str, query: dict[str, list[str]]) -> None:
            revision, _, folder = rest.partition("/")
            commit = self._commit(repo, revision)
            folder = unquote(folder).strip("/")
            recursive = (query.get("recursive") or ["false"])[0].lower() in ("1", "true")
            prefix = folder + "/" if folder else ""
            if folder and not any(p.startswith(prefix) for p in commit.tree):
                raise HubError(404, f"{folder} does not exist on {revision}", "EntryNotFound")
            out: dict[str, dict[str, Any]] = {}
            for path, blob in sorted(commit.tree.items()):
                if not path.startswith(prefix):
                    continue
                parts = path[len(prefix):].split("/")
                for depth in range(1, len(parts)):
                    sub = prefix + "/".join(parts[:depth])
                    if recursive or depth == 1:
                        out.setdefault(sub, _folder(sub, commit))
                if recursive or len(parts) == 1:
                    out[path] = blob.entry(path)
            self._json(200, sorted(out.values(), key=lambda e: e["path"]))

        def _refs(self, repo: Repo, rest: str, query: dict[str, list[str]]) -> None:
            def ref(kind: str, name: str, sha: str) -> dict[str, str]:
                return {"name": name, "ref": f"refs/{kind}/{name}", "targetCommit": sha}

            self._json(200, {
                "branches": [ref("heads", n, s) for n, s in sorted(repo.branches.items())],
                "tags": [ref("tags", n, s) for n, s in sorted(repo.tags.items())],
                "converts": [],
            })

        def _branch(self, repo: Repo, name: str, query: dict[str, list[str]]) -> None:
            self._authorized()
            name = unquote(name)
            with hub._lock:
                if self.command == "DELETE":
                    repo.branches.pop(name, None)
                    self._json(200, {})
                    return
                if name in repo.branches:
                    raise HubError(409, f"Reference refs/heads/{name} already exists")
                body = self._body()
                start = (json.loads(body) if body else {}).get("startingPoint") or "main"
                repo.branches[name] = self._commit(repo, start).sha
            self._json(200, {})

        def _tag(self, repo: Repo, revision: str, query: dict[str, list[str]]) -> None:
            self._authorized()
            blob = json.loads(self._body())
            with hub._lock:
                if blob["tag"] in repo.tags:
                    raise HubError(409, f"Tag {blob['tag']} already exists")
                repo.tags[blob["tag"]] = self._commit(repo, revision).sha
            self._json(200, {})

        def _lfs_batch(self, repo: Repo, types: str) -> None:
            self._authorized()
            blob = json.loads(self._body())
            if blob.get("operation") != "upload":
                raise HubError(400, "the fake hub only does LFS uploads through the batch API")
            objects = []
            for obj in blob["objects"]:
                item: dict[str, Any] = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
                if obj["oid"] not in repo.objects:
                    item["actions"] = {
                        "upload": {"href": f"{hub.storage}/objects/{types}/{repo.repo_id}/{obj['oid']}"},
                        "verify": {"href": f"{hub.endpoint}/{types}/{repo.repo_id}.git/info/lfs/objects/verify"},
                    }
                objects.append(item)
            self._send(200, json.dumps({"transfer": "basic", "objects": objects}).encode(),
                       content_type="application/vnd.git-lfs+json")

        def _resolve(self, repo: Repo, types: str, revision: str, path: str) -> None:
            commit = self._commit(repo, revision)
            blob = commit.tree.get(path)
            if blob is None:
                raise HubError(404, f"Entry not found: {path}", "EntryNotFound", headers={"X-Repo-Commit": commit.sha})
            headers = {"X-Repo-Commit": commit.sha, "ETag": f'"{blob.blob_id}"', "Accept-Ranges": "bytes"}
            if blob.lfs_oid is not None:
                location = f"{hub.storage}/objects/{types}/{repo.repo_id}/{blob.lfs_oid}"
                headers.update({"Location": location, "X-Linked-Etag": f'"{blob.lfs_oid}"', "X-Linked-Size": str(blob.size)})
                self._send(302, b"", headers)
                return
            assert blob.content is not None
            self._range(blob.content, headers)

    return Handler


def _folder(path: str, commit: Commit) -> dict[str, Any]:
    return {"type": "directory", "oid": hashlib.sha1(f"{commit.sha}:{path}".encode()).hexdigest(), "size": 0, "path": path}


__all__ = ["FakeHub", "validate_card_metadata", "git_blob_id", "quote"]
