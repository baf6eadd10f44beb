"""Library entry point of the oracle: run many suites, in order, sandboxed, cached.

``Oracle`` holds a warm pool of fork servers and an optional cache; ``run_suites`` is the
one-call form (it keeps a shared warm pool per configuration so that repeated calls stay cheap).

Identical suites in one call run once. A cached verdict is reused only when it was produced
under the same salt (oracle version, limits, interpreter version) and with at least the
protections that are active now.
"""

from __future__ import annotations

import atexit
import os
import threading
import warnings
from collections.abc import Iterable, Sequence
from types import TracebackType

from tqdm import tqdm

from ..errors import ExecRetrievalError
from .cache import CacheKey, ExecutionCache
from .limits import Limits, cache_salt
from .outcomes import Suite, SuiteResult
from .pool import ForkServerPool, SandboxInfo, SandboxStartError
from .program import DEFAULT_READ_PATHS
from .protections import ALL_PROTECTIONS, Protection
from .selfcheck import CanaryResult, canaries, run_quick


class OracleUnavailableError(ExecRetrievalError):
    """Strict mode was asked for protections this machine cannot give, or the sandbox cannot start."""


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)))


class Oracle:
    """Sandboxed, cached execution oracle; use as a context manager (it owns processes).

    At start the quick self-check canaries run (``canary_results``). ``strict=True`` requires every
    protection in ``required`` (default: all of them) and every canary to behave, and raises
    ``OracleUnavailableError`` at start otherwise, naming what is missing and why; without strict
    mode a misbehaving canary only warns. ``disabled``
    switches layers off (for debugging, or where one breaks legitimate code); they are then
    reported as missing.
    """

    def __init__(
        self,
        workers: int | None = None,
        limits: Limits | None = None,
        cache: ExecutionCache | str | os.PathLike[str] | None = None,
        strict: bool = False,
        required: Iterable[Protection] | None = None,
        read_paths: Sequence[str] = DEFAULT_READ_PATHS,
        disabled: Iterable[Protection] = (),
    ) -> None:
        self.limits = limits or Limits()
        self.workers = workers or default_workers()
        self.strict = strict
        self.required = frozenset(required) if required is not None else ALL_PROTECTIONS
        self._owns_cache = cache is not None and not isinstance(cache, ExecutionCache)
        self.cache = ExecutionCache(cache) if self._owns_cache else cache  # type: ignore[arg-type]
        self._pool = ForkServerPool(self.workers, self.limits, read_paths, disabled)
        self.stats = {"cached": 0, "duplicates": 0, "executed": 0, "infra_errors": 0, "workers_replaced": 0,
                      "workers_renewed": 0}
        """Counts over this oracle's life: suites answered from the cache, repeated within one call
        (answered by their first copy), run in the sandbox, not judged (the harness failed twice:
        ``SuiteResult.infra_kind`` says why), fork servers replaced after an anomaly (each such
        suite was retried on the fresh one), and fork servers rebuilt because a suite left their
        worker holding more memory or processes than when fresh (that suite's verdict stands: it
        started in a fresh world; the next one runs on the rebuilt worker)."""
        self._info: SandboxInfo | None = None
        self.canary_results: list[CanaryResult] = []
        """Verdicts of the quick self-check canaries run at start."""
        self._lock = threading.Lock()

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> SandboxInfo:
        """Start the fork servers and check strict mode; idempotent."""
        if self._info is None:
            try:
                info = self._pool.start()
            except (SandboxStartError, RuntimeError) as exc:
                self._pool.close()
                raise OracleUnavailableError(f"the sandbox cannot start: {exc}") from None
            missing = sorted(self.required - set(info.protections), key=lambda p: p.value)
            if self.strict and missing:
                self._pool.close()
                why = "; ".join(f"{p.value} ({info.missing.get(p.value, 'not available')})" for p in missing)
                raise OracleUnavailableError(f"strict mode: missing protection(s): {why}")
            self.canary_results = run_quick(canaries(quick_only=True), len(self._pool.servers), self._pool.run)
            broken = [r for r in self.canary_results if not r.ok]
            if broken:
                why = "; ".join(f"{r.canary.name} gave {r.verdict}" for r in broken)
                if self.strict:
                    self._pool.close()
                    raise OracleUnavailableError(f"strict mode: sandbox self-check failed: {why}")
                warnings.warn(f"oracle sandbox self-check failed: {why}", RuntimeWarning, stacklevel=2)
            self._info = info
        return self._info

    @property
    def protections(self) -> tuple[Protection, ...]:
        return self.start().protections

    @property
    def salt(self) -> str:
        return cache_salt(self.limits, self.start().python)

    def close(self) -> None:
        self._pool.close()
        self._info = None
        if self.cache is not None:
            if self._owns_cache:
                self.cache.close()
            else:
                self.cache.flush()

    def __enter__(self) -> Oracle:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- running ------------------------------------------------------------------------------
    def run(self, suites: Sequence[Suite], progress: bool = False) -> list[SuiteResult]:
        """Results for ``suites`` in input order (cache hits first, the rest through the sandbox)."""
        with self._lock:
            info = self.start()
            salt = self.salt
            keys: list[CacheKey] = [(s.code_sha256, s.tests_sha256) for s in suites]
            results: list[SuiteResult | None] = [None] * len(suites)
            hits: dict[CacheKey, SuiteResult] = {}
            if self.cache is not None:
                hits = self.cache.get_many(keys, salt, at_least=info.protections)
                for i, key in enumerate(keys):
                    results[i] = hits.get(key)
            first_index: dict[CacheKey, int] = {}
            for i, key in enumerate(keys):
                if results[i] is None:
                    first_index.setdefault(key, i)
            todo = list(first_index.values())
            bar = tqdm(total=len(todo), desc="oracle", unit="suite", disable=not progress or not todo, leave=False)

            def on_result(position: int, result: SuiteResult) -> None:
                if self.cache is not None:
                    self.cache.put(keys[todo[position]], salt, result)
                bar.update(1)

            try:
                fresh = self._pool.run([suites[i] for i in todo], on_result=on_result)
            finally:
                bar.close()
                if self.cache is not None:
                    self.cache.flush()
            by_key = {keys[i]: r for i, r in zip(todo, fresh)}
            cached = sum(key in hits for key in keys)
            self.stats["cached"] += cached
            self.stats["duplicates"] += len(suites) - cached - len(todo)
            self.stats["executed"] += len(todo)
            self.stats["infra_errors"] += sum(r.infra_error is not None for r in fresh)
            self.stats["workers_replaced"] = sum(server.replaced for server in self._pool.servers)
            self.stats["workers_renewed"] = sum(server.renewed for server in self._pool.servers)
            return [r if r is not None else by_key[keys[i]] for i, r in enumerate(results)]

    def run_one(self, suite: Suite) -> SuiteResult:
        return self.run([suite])[0]


_shared: dict[tuple[int, Limits], Oracle] = {}
_shared_lock = threading.Lock()


def _close_shared() -> None:
    with _shared_lock:
        for oracle in _shared.values():
            oracle.close()
        _shared.clear()


def run_suites(
    suites: Sequence[Suite],
    workers: int | None = None,
    progress: bool = False,
    *,
    limits: Limits | None = None,
    cache: ExecutionCache | str | os.PathLike[str] | None = None,
    strict: bool = False,
) -> list[SuiteResult]:
    """Run every suite in the sandbox; results come back in input order.

    Without ``cache`` and ``strict`` the warm pool is kept for later calls with the same
    ``workers`` and ``limits`` (closed at interpreter exit).
    """
    if not suites:
        return []
    limits = limits or Limits()
    if cache is not None or strict:
        with Oracle(workers=workers, limits=limits, cache=cache, strict=strict) as oracle:
            return oracle.run(suites, progress=progress)
    key = (workers or default_workers(), limits)
    with _shared_lock:
        oracle = _shared.get(key)
        if oracle is None:
            if not _shared:
                atexit.register(_close_shared)
            oracle = _shared[key] = Oracle(workers=key[0], limits=limits)
    return oracle.run(suites, progress=progress)
