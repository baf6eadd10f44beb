"""``execretrieval oracle``: run suites through the sandboxed oracle, check the sandbox, move the cache.

- ``oracle run INPUT.jsonl -o OUTPUT.jsonl [--workers N] [--oracle-cache PATH | --no-oracle-cache] [--strict]``
  input lines ``{"id", "code", "tests"}``; output lines, in input order,
  ``{"id", "outcomes", "passed", "protections"}`` (plus ``near_limit`` when some test came near its
  CPU limit, and ``infra_error``/``infra_kind`` for a suite the harness could not judge: the others
  are still judged and written, and the command exits 1).
- ``oracle selfcheck [--strict]`` prints the active protections and every canary's verdict.
- ``oracle cache-export -o OUT.jsonl`` / ``oracle cache-import IN.jsonl`` move verdicts in the
  original ``execution_cache.jsonl`` schema; rows without ``oracle_salt`` are filed under the
  default limits' salt.

``--oracle-cache`` is the verdict cache's spelling everywhere (``build`` too); ``--cache``,
``--no-cache`` and ``cache-export OUT.jsonl`` are kept as deprecated spellings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..dataset.io import dumps_jsonl, write_text_atomic
from ..errors import UsageError
from ..oracle.api import Oracle
from ..oracle.cache import ExecutionCache
from ..oracle.limits import Limits, cache_salt
from ..oracle.outcomes import Suite
from ..oracle.program import find_interpreter
from ..oracle.selfcheck import canaries, judge
from .options import add_deprecated_alias, add_quiet, add_workers

HELP = "run code/test suites in the sandboxed execution oracle (run, selfcheck, cache-export, cache-import)"


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "execretrieval" / "oracle-cache.sqlite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="oracle_command", metavar="ACTION", required=True)

    run = sub.add_parser("run", help="run every suite of a JSONL file", description="Run every suite of INPUT (one "
                         '{"id", "code", "tests"} object per line) and write one result line per suite, in order.')
    run.add_argument("input", type=Path, metavar="INPUT.jsonl")
    run.add_argument("-o", "--output", type=Path, required=True, metavar="OUTPUT.jsonl", help="where the results go")
    _add_common(run)
    where = run.add_mutually_exclusive_group()
    where.add_argument("--oracle-cache", dest="cache", type=Path, metavar="PATH",
                       help=f"verdict cache (default: {default_cache_path()})")
    where.add_argument("--no-oracle-cache", dest="no_cache", action="store_true", help="run everything, store nothing")
    add_deprecated_alias(run, "--cache", "--oracle-cache", "cache", type=Path)
    add_deprecated_alias(run, "--no-cache", "--no-oracle-cache", "no_cache", flag=True)
    run.add_argument("--test-cpu-s", type=float, default=Limits().test_cpu_s, help="CPU seconds per test (default %(default)s)")
    run.add_argument("--suite-wall-s", type=float, default=Limits().suite_wall_s, help="wall seconds per suite (default %(default)s)")
    add_quiet(run)

    check = sub.add_parser("selfcheck", help="print the active protections and every canary's verdict",
                           description="Start the sandbox, print which protections are active, and run every "
                                       "canary (hostile and benign programs); exit 1 if one misbehaves.")
    _add_common(check)

    export = sub.add_parser("cache-export", help="write the cache as execution_cache.jsonl",
                            description="Write every verdict of the oracle cache in the original "
                                        "execution_cache.jsonl schema.")
    export.add_argument("-o", "--output", dest="output", type=Path, default=None, metavar="OUT.jsonl",
                        help="where the rows go")
    export.add_argument("legacy_output", type=Path, nargs="?", default=None, help=argparse.SUPPRESS)
    _add_cache_option(export)
    importer = sub.add_parser("cache-import", help="load an execution_cache.jsonl into the cache",
                              description="Load the rows of an execution_cache.jsonl (ours or the original "
                                          "release's) into the oracle cache.")
    importer.add_argument("input", type=Path, metavar="IN.jsonl")
    _add_cache_option(importer)


def _add_cache_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--oracle-cache", dest="cache", type=Path, metavar="PATH",
                        help=f"verdict cache (default: {default_cache_path()})")
    add_deprecated_alias(parser, "--cache", "--oracle-cache", "cache", type=Path)


def _add_common(parser: argparse.ArgumentParser) -> None:
    add_workers(parser)
    parser.add_argument("--strict", action="store_true", help="refuse to run unless every protection is active")


def run(args: argparse.Namespace) -> int:
    action = {"run": _run, "selfcheck": _selfcheck, "cache-export": _export, "cache-import": _import}
    return action[args.oracle_command](args)


def read_suites(path: Path) -> list[tuple[Any, Suite]]:
    """(id, Suite) per line of ``path``; raises UsageError naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None
    suites: list[tuple[Any, Suite]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where}: not valid JSON ({exc.msg}); each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise UsageError(f"{where}: expected a JSON object with id, code and tests")
        for field in ("id", "code", "tests"):
            if field not in obj:
                raise UsageError(f"{where}: missing field {field!r} (each line needs id, code and tests)")
        if not isinstance(obj["code"], str):
            raise UsageError(f"{where}: field 'code' must be a string of Python source")
        tests = obj["tests"]
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            raise UsageError(f"{where}: field 'tests' must be a list of strings (one test statement each)")
        suites.append((obj["id"], Suite(obj["code"], tuple(tests))))
    return suites


def _run(args: argparse.Namespace) -> int:
    rows = read_suites(args.input)
    try:
        limits = Limits(test_cpu_s=args.test_cpu_s, test_wall_s=max(Limits().test_wall_s, 2 * args.test_cpu_s),
                        suite_wall_s=args.suite_wall_s)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    cache = None if args.no_cache else (args.cache or default_cache_path())
    with Oracle(workers=args.workers, limits=limits, cache=cache, strict=args.strict) as oracle:
        results = oracle.run([s for _, s in rows], progress=not args.quiet)
        stats = dict(oracle.stats)
    out = []
    for (suite_id, _), result in zip(rows, results):
        row: dict[str, Any] = {
            "id": suite_id, "outcomes": result.outcome_strings(), "passed": result.passed,
            "protections": [p.value for p in result.protections],
        }
        if result.near_limit:
            row["near_limit"] = sorted(result.near_limit)
        if result.infra_kind is not None:
            row["infra_error"] = result.infra_error
            row["infra_kind"] = result.infra_kind.value
        out.append(row)
    write_text_atomic(args.output, dumps_jsonl(out))
    not_judged = [row for row in out if "infra_kind" in row]
    if not args.quiet:
        print(f"{len(rows)} suites: {stats['cached']} from cache, {stats['executed']} executed, "
              f"{stats['duplicates']} duplicates, {stats['infra_errors']} infrastructure errors -> {args.output}"
              f"{_replaced(stats['workers_replaced'])}", file=sys.stderr)
    for row in not_judged[:10]:
        print(f"  not judged: {row['id']!r} [{row['infra_kind']}] {row['infra_error']}", file=sys.stderr)
    if len(not_judged) > 10:
        print(f"  ... and {len(not_judged) - 10} more (see infra_error in {args.output})", file=sys.stderr)
    return 1 if not_judged else 0


def _replaced(count: int) -> str:
    return f" ({count} worker(s) replaced after an anomaly; their suites were retried)" if count else ""


def _selfcheck(args: argparse.Namespace) -> int:
    with Oracle(workers=args.workers, strict=args.strict) as oracle:
        info = oracle.start()
        print("active protections:")
        for protection in info.protections:
            print(f"  + {protection.value}")
        for name, why in sorted(info.missing.items()):
            print(f"  - {name}: {why}")
        print(f"sandbox python: {info.python}")
        chosen = canaries(quick_only=False)
        results = judge(chosen, oracle.run([c.suite for c in chosen]))
    print("canaries:")
    width = max(len(c.name) for c in chosen)
    for r in results:
        expectation = "must pass" if r.canary.must_pass else "must be contained"
        status = "ok" if r.ok else "FAILED"
        print(f"  {r.canary.name:<{width}}  {r.verdict:<24} {expectation:<18} {status}")
    broken = [r for r in results if not r.ok]
    print("selfcheck: " + ("all canaries behaved" if not broken else f"{len(broken)} canary(ies) misbehaved"))
    return 1 if broken else 0


def _open_cache(args: argparse.Namespace) -> ExecutionCache:
    return ExecutionCache(args.cache or default_cache_path())


def _export(args: argparse.Namespace) -> int:
    output = args.output
    if args.legacy_output is not None:
        if output is not None:
            raise UsageError("give the output once: -o OUT.jsonl (the positional OUT.jsonl is its deprecated spelling)")
        print("execretrieval oracle cache-export: note: `cache-export OUT.jsonl` is deprecated; use "
              "`cache-export -o OUT.jsonl`", file=sys.stderr)
        output = args.legacy_output
    if output is None:
        raise UsageError("where should the rows go? give -o OUT.jsonl")
    with _open_cache(args) as cache:
        count = cache.export_jsonl(output)
    print(f"exported {count} rows -> {output}", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    salt = cache_salt(Limits(), find_interpreter(world_readable=os.geteuid() == 0).version)
    with _open_cache(args) as cache:
        count = cache.import_jsonl(args.input, salt)
    print(f"imported {count} rows from {args.input} (salt {salt})", file=sys.stderr)
    return 0
