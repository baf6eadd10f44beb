"""Persistent verdict cache: sqlite in WAL mode, keyed by (code sha256, tests sha256, salt).

A verdict is stored per protection set too (with the tests that ran near their CPU limit,
``SuiteResult.near_limit``), so a run with weaker protections (or an import)
never overwrites one made with stronger ones; a lookup takes only rows made with at least the
protections active now.

WAL gives many readers plus concurrent writers from several processes (each write waits on a
busy timeout), and a ``kill -9`` loses at most the uncommitted batch: every committed row is a
complete verdict, so a rerun resumes where the last commit left off. Infrastructure errors are
never stored. Export/import speak the original study's ``execution_cache.jsonl`` schema
(``code_sha256``, ``tests_sha256``, ``test_results``), plus ``protections``, ``oracle_salt`` and
``near_limit``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Collection, Iterable
from pathlib import Path

from ..errors import ExecRetrievalError
from .outcomes import SuiteResult, TestOutcome
from .protections import Protection

CacheKey = tuple[str, str]  # (code_sha256, tests_sha256)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    code_sha256  TEXT NOT NULL,
    tests_sha256 TEXT NOT NULL,
    salt         TEXT NOT NULL,
    outcomes     TEXT NOT NULL,
    protections  TEXT NOT NULL,
    created      REAL NOT NULL,
    near_limit   TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (code_sha256, tests_sha256, salt, protections)
) WITHOUT ROWID
"""
_ADD_NEAR_LIMIT = "ALTER TABLE verdicts ADD COLUMN near_limit TEXT NOT NULL DEFAULT '[]'"  # files made before it
_COMMIT_EVERY = 256
_COMMIT_INTERVAL_S = 1.0
_LOOKUP_CHUNK = 400


class CacheError(ExecRetrievalError):
    """The cache file or an import file cannot be used; the message names the file and line."""


class ExecutionCache:
    """Thread-safe handle on one cache file; writes are batched, ``flush()`` commits them."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            self._set_up()
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"{self.path}: not a usable oracle cache ({exc}); delete it or pass another --oracle-cache path") from None
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str, str, str, str, float, str]] = []
        self._last_commit = time.monotonic()

    def _set_up(self) -> None:
        """WAL mode and the table. Two processes creating the same new file can see "database is
        locked" here without sqlite's busy timeout being consulted (switching to WAL needs an
        exclusive lock), so that one error is retried for a while."""
        deadline = time.monotonic() + 60.0
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(verdicts)")}
                if "near_limit" not in columns:
                    self._db.execute(_ADD_NEAR_LIMIT)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self.flush()
        self._db.close()

    def __enter__(self) -> ExecutionCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    # -- read ---------------------------------------------------------------------------------
    def get_many(
        self, keys: Iterable[CacheKey], salt: str, at_least: Collection[Protection] = (),
    ) -> dict[CacheKey, SuiteResult]:
        """Cached results for those ``keys`` that have one under ``salt`` made with every protection in ``at_least``."""
        wanted = list(dict.fromkeys(keys))
        needed = set(at_least)
        found: dict[CacheKey, SuiteResult] = {}
        with self._lock:
            for i in range(0, len(wanted), _LOOKUP_CHUNK):
                chunk = wanted[i : i + _LOOKUP_CHUNK]
                codes = sorted({c for c, _ in chunk})
                marks = ",".join("?" * len(codes))
                rows = self._db.execute(
                    f"SELECT code_sha256, tests_sha256, outcomes, protections, near_limit FROM verdicts "
                    f"WHERE salt = ? AND code_sha256 IN ({marks})", [salt, *codes],
                ).fetchall()
                chunk_keys = set(chunk)
                for code_sha, tests_sha, outcomes, protections, near in rows:
                    if (code_sha, tests_sha) in chunk_keys and (code_sha, tests_sha) not in found:
                        result = _row_result(outcomes, protections, near)
                        if needed <= set(result.protections):
                            found[(code_sha, tests_sha)] = result
        return found

    # -- write --------------------------------------------------------------------------------
    def put(self, key: CacheKey, salt: str, result: SuiteResult) -> None:
        """Queue ``result`` for storage (infrastructure errors are ignored); commits in batches."""
        if result.infra_error is not None:
            return
        row = (key[0], key[1], salt, json.dumps(result.outcome_strings()),
               json.dumps([p.value for p in result.protections]), time.time(), json.dumps(sorted(result.near_limit)))
        with self._lock:
            self._pending.append(row)
            due = len(self._pending) >= _COMMIT_EVERY or time.monotonic() - self._last_commit >= _COMMIT_INTERVAL_S
        if due:
            self.flush()

    def flush(self) -> None:
        """Commit queued rows in one transaction."""
        with self._lock:
            rows, self._pending = self._pending, []
            self._last_commit = time.monotonic()
            if not rows:
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO verdicts (code_sha256, tests_sha256, salt, outcomes, protections, created, "
                    "near_limit) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- exchange with the original schema ----------------------------------------------------
    def export_jsonl(self, path: str | os.PathLike[str], salt: str | None = None) -> int:
        """Write every row (or those of ``salt``) as execution_cache.jsonl lines, atomically; returns the count."""
        self.flush()
        query = "SELECT code_sha256, tests_sha256, salt, outcomes, protections, near_limit FROM verdicts"
        params: list[str] = []
        if salt is not None:
            query += " WHERE salt = ?"
            params.append(salt)
        query += " ORDER BY code_sha256, tests_sha256, salt"
        target = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        count = 0
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                with self._lock:
                    rows = self._db.execute(query, params).fetchall()
                for code_sha, tests_sha, row_salt, outcomes, protections, near in rows:
                    fh.write(json.dumps({
                        "code_sha256": code_sha, "tests_sha256": tests_sha, "test_results": json.loads(outcomes),
                        "protections": json.loads(protections), "oracle_salt": row_salt, "near_limit": json.loads(near),
                    }, ensure_ascii=False) + "\n")
                    count += 1
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
        return count

    def import_jsonl(self, path: str | os.PathLike[str], salt: str) -> int:
        """Load execution_cache.jsonl rows; rows without ``oracle_salt`` are filed under ``salt``.

        The whole file is validated before anything is written; returns the number of rows.
        """
        rows = []
        source = Path(path)
        try:
            lines = source.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CacheError(f"{source}: cannot read ({exc.strerror})") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{source}:{number}"
            try:
                obj = json.loads(line)
                code_sha, tests_sha, results = obj["code_sha256"], obj["tests_sha256"], obj["test_results"]
                outcomes = [TestOutcome.parse(r).to_str() for r in results]
                protections = [p.value for p in Protection.parse_many(obj.get("protections", []))]
                near = sorted(int(i) for i in obj.get("near_limit", []))
            except json.JSONDecodeError as exc:
                raise CacheError(f"{where}: not valid JSON ({exc.msg})") from None
            except KeyError as exc:
                raise CacheError(f"{where}: missing field {exc.args[0]!r} (need code_sha256, tests_sha256, test_results)") from None
            except (TypeError, ValueError) as exc:
                raise CacheError(f"{where}: {exc}") from None
            rows.append((code_sha, tests_sha, obj.get("oracle_salt", salt), json.dumps(outcomes),
                         json.dumps(protections), time.time(), json.dumps(near)))
        with self._lock:
            self._pending.extend(rows)
        self.flush()
        return len(rows)


def _row_result(outcomes: str, protections: str, near: str) -> SuiteResult:
    return SuiteResult(
        outcomes=tuple(TestOutcome.parse(o) for o in json.loads(outcomes)),
        protections=Protection.parse_many(json.loads(protections)),
        near_limit=frozenset(json.loads(near)),
    )
