"""Throughput of the sandboxed oracle against the study's runner, on the same generated suites.

(a) the study's runner: one ``python -I`` subprocess per suite, fresh namespace per test, 5 s
timeout (``reference_runner.run_suite_reference``, next to this script), run on ``--workers`` threads;
(b) the oracle in strict mode (every protection on, self-check passed), ``--workers`` fork servers.

The suites are generated deterministically: passing, failing (wrong output, missing exception),
crashing (exceptions raised by the code) and a few looping ones whose last test never ends (the
last, so that both runners agree on every verdict). The script checks that the verdicts are
identical and prints suites/s of both and the ratio.

For scale it also times (c) the ceiling of any fork-per-suite design on this machine: the same
plain suites through a bare loop in the sandbox interpreter (``--workers`` processes, pinned to a
CPU each when there is one per CPU, as the oracle's are, each forking one child per suite that
runs the tests and exits), with no sandbox, no watchdog and no IPC. What
the oracle loses against (c) is the price of its protections and plumbing; what (c) gains over
(a) is all a warm fork server can gain. Usage:

    .venv/bin/python benchmarks/oracle_throughput.py [--suites 600] [--workers 2] [--loops 6] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from execretrieval_mteb.oracle.api import Oracle
from execretrieval_mteb.oracle.outcomes import Suite
from execretrieval_mteb.oracle.program import BOOTSTRAP, INTERPRETER_FLAGS, find_interpreter, sandbox_source
from reference_runner import run_suite_reference

_FORK_LOOP = sandbox_source("pytest_shim.py") + r'''
import json, os, sys, time
suites = json.load(open(sys.argv[-1]))
sys.stdin.read(1)  # every loop starts together
started = time.perf_counter()
passed = 0
for suite in suites:
    pid = os.fork()
    if pid == 0:
        ok = 0
        code = compile(suite["code"], "<code>", "exec")
        for test in suite["tests"]:
            namespace = {"__name__": "__main__", "pytest": pytest}
            try:
                exec(code, namespace)
                exec(compile(test, "<test>", "exec"), namespace)
                ok += 1
            except BaseException:
                pass
        os._exit(ok)
    passed += os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps({"seconds": time.perf_counter() - started, "passed": passed}))
'''


def _arithmetic(rng: random.Random, i: int) -> Suite:
    a, b = rng.randint(1, 9), rng.randint(-5, 5)
    bug = rng.random() < 0.4
    code = f"def f(x):\n    # suite {i}\n    return {a} * x {'-' if bug else '+'} {b}\n"
    tests = tuple(f"assert f({x}) == {a * x + b}" for x in rng.sample(range(-20, 20), 8))
    return Suite(code, tests)


def _lists(rng: random.Random, i: int) -> Suite:
    off_by_one = rng.random() < 0.4
    code = (
        "import heapq\n\n"
        f"def top_k(items, k):\n    # suite {i}\n"
        "    if k < 0:\n        raise ValueError('k must be >= 0')\n"
        f"    return heapq.nlargest(k{' + 1' if off_by_one else ''}, items)\n"
    )
    tests = []
    for _ in range(7):
        items = [rng.randint(0, 99) for _ in range(rng.randint(3, 12))]
        k = rng.randint(0, 3)
        tests.append(f"assert top_k({items}, {k}) == {sorted(items, reverse=True)[:k]}")
    tests.append("with pytest.raises(ValueError):\n    top_k([1], -1)")
    return Suite(code, tuple(tests))


def _crashing(rng: random.Random, i: int) -> Suite:
    kind = rng.choice(["zero", "index", "key", "missing_raise", "assert_in_code"])
    body = {
        "zero": "    return 100 // (x - 3)",
        "index": "    return [1, 2, 3][x]",
        "key": "    return {0: 'a', 1: 'b'}[x]",
        "missing_raise": "    return x * 2",
        "assert_in_code": "    assert x < 4, 'too big'\n    return x",
    }[kind]
    code = f"def g(x):\n    # suite {i}\n{body}\n"
    tests = tuple(f"assert g({x}) == g({x})" for x in range(6)) + ("with pytest.raises(TypeError):\n    g(1)",)
    return Suite(code, tests)


def _strings(rng: random.Random, i: int) -> Suite:
    wrong = rng.random() < 0.4
    code = f"def shout(s):\n    # suite {i}\n    return s.upper(){' + ' + repr('!') if wrong else ''}\n"
    words = ["".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 8))) for _ in range(8)]
    return Suite(code, tuple(f"assert shout({w!r}) == {w.upper()!r}" for w in words))


def _looping(rng: random.Random, i: int) -> Suite:
    code = f"def halve_to_zero(n):\n    # suite {i}\n    while n != 0:\n        n -= 2\n    return True\n"
    tests = tuple(f"assert halve_to_zero({2 * k})" for k in range(6)) + ("assert halve_to_zero(7)",)
    return Suite(code, tests)


def generate(n: int, loops: int, seed: int = 0) -> list[Suite]:
    rng = random.Random(seed)
    makers = [_arithmetic, _lists, _crashing, _strings]
    suites = [makers[i % len(makers)](rng, i) for i in range(n - loops)]
    for j in range(loops):
        suites.insert(rng.randrange(len(suites) + 1), _looping(rng, n + j))
    return suites


def fork_ceiling(suites: list[Suite], workers: int) -> tuple[float, int]:
    """(seconds, passing tests) of the bare fork-per-suite loop over ``suites`` on ``workers`` processes."""
    interpreter = find_interpreter(world_readable=os.geteuid() == 0).path  # the one the oracle's servers run
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for w in range(workers):
            path = os.path.join(tmp, f"suites-{w}.json")
            with open(path, "w") as fh:
                json.dump([{"code": s.code, "tests": list(s.tests)} for s in suites[w::workers]], fh)
            # compiled by exec, like the sandbox program: a -c module's syntax tree would stay alive
            procs.append(subprocess.Popen([interpreter, *INTERPRETER_FLAGS, "-c", BOOTSTRAP, _FORK_LOOP, path],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        cpus = sorted(os.sched_getaffinity(0))
        if workers == len(cpus) > 1:  # pinned one per CPU, as the oracle's workers are
            for proc, cpu in zip(procs, cpus):
                os.sched_setaffinity(proc.pid, {cpu})
        time.sleep(0.5)  # let every interpreter load its share
        for proc in procs:
            proc.stdin.write("g")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        reports = [json.loads(proc.stdout.read()) for proc in procs]  # type: ignore[union-attr]
        for proc in procs:
            proc.wait()
    return max(r["seconds"] for r in reports), sum(r["passed"] for r in reports)


def one_round(suites: list[Suite], parts: dict[str, list[int]], workers: int) -> dict[str, object]:
    """Every measurement once: oracle (start-up, then each part), study runner, fork ceiling."""
    started = time.perf_counter()
    with Oracle(workers=workers, strict=True) as oracle:
        ready = time.perf_counter()
        ours, our_time = {}, {}
        for name, indices in parts.items():
            t0 = time.perf_counter()
            for i, result in zip(indices, oracle.run([suites[i] for i in indices], progress=True)):
                ours[i] = result
            our_time[name] = time.perf_counter() - t0
        protections = [p.value for p in oracle.protections]
    theirs, their_time = {}, {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for name, indices in parts.items():
            t0 = time.perf_counter()
            for i, result in zip(indices, pool.map(run_suite_reference, [suites[i] for i in indices])):
                theirs[i] = result
            their_time[name] = time.perf_counter() - t0
    ceiling_s, ceiling_passed = fork_ceiling([suites[i] for i in parts["plain"]], workers)
    return {"ours": ours, "theirs": theirs, "our_time": our_time, "their_time": their_time,
            "start": ready - started, "protections": protections, "ceiling_s": ceiling_s,
            "ceiling_passed": ceiling_passed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--loops", type=int, default=6, help="looping suites among --suites (default 1%%)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every measurement; times are their medians")
    args = parser.parse_args(argv)
    suites = generate(args.suites, args.loops)

    looping = [i for i, s in enumerate(suites) if "halve_to_zero" in s.code]
    plain = [i for i in range(len(suites)) if i not in set(looping)]
    parts = {"plain": plain, "looping": looping}
    rounds = [one_round(suites, parts, args.workers) for _ in range(max(1, args.repeat))]

    def median(values: list[float]) -> float:
        return statistics.median(values)

    our_time = {name: median([r["our_time"][name] for r in rounds]) for name in parts}  # type: ignore[index]
    their_time = {name: median([r["their_time"][name] for r in rounds]) for name in parts}  # type: ignore[index]
    start_time = median([r["start"] for r in rounds])  # type: ignore[misc]
    ceiling_s = median([r["ceiling_s"] for r in rounds])  # type: ignore[misc]
    first = rounds[0]
    ours, theirs = first["ours"], first["theirs"]
    mismatches = sorted({i for r in rounds for i in range(len(suites))
                         if r["ours"][i].outcome_strings() != r["theirs"][i].outcome_strings()})  # type: ignore[index]
    plain_passed = sum(o.passed for i in plain for o in ours[i].outcomes)  # type: ignore[index]
    kinds = {o for r in ours.values() for o in r.outcome_strings()}  # type: ignore[union-attr]
    load = os.getloadavg()[0]
    print(f"suites: {len(suites)} ({len(looping)} looping), workers: {args.workers}, cpus: {os.cpu_count()}, "
          f"rounds: {len(rounds)}{' (medians)' if len(rounds) > 1 else ''}, load average after the run: {load:.1f}")
    print(f"verdict kinds: {sorted(kinds)}")
    protections = first["protections"]
    print(f"oracle protections ({len(protections)}): {', '.join(protections)}")  # type: ignore[arg-type]
    print(f"oracle start-up incl. self-check: {start_time:.2f} s (counted in the totals below)")
    print(f"{'suites':<10} {'study runner s':>15} {'oracle s':>9} {'study /s':>9} {'oracle /s':>10} {'ratio':>7}")
    rows = [(name, len(parts[name]), their_time[name], our_time[name]) for name in parts]
    rows.append(("all", len(suites), sum(their_time.values()), sum(our_time.values()) + start_time))
    for name, n, theirs_s, ours_s in rows:
        print(f"{name:<10} {theirs_s:>15.2f} {ours_s:>9.2f} {n / theirs_s:>9.1f} {n / ours_s:>10.1f} {theirs_s / ours_s:>6.1f}x")
    print(f"ratio (oracle vs study runner, all suites, incl. start-up): {rows[-1][2] / rows[-1][3]:.2f}x")
    if len(rounds) > 1:
        each = [sum(r["their_time"].values()) / (sum(r["our_time"].values()) + r["start"]) for r in rounds]  # type: ignore[union-attr,operator]
        print(f"  each round: {', '.join(f'{x:.2f}x' for x in each)}")
    n_plain, their_plain, our_plain = len(plain), their_time["plain"], our_time["plain"]
    print(f"fork-per-suite ceiling (plain suites, no sandbox, no IPC): {ceiling_s:.2f} s, {n_plain / ceiling_s:.1f}/s, "
          f"{their_plain / ceiling_s:.1f}x the study runner; the oracle reaches {ceiling_s / our_plain:.0%} of it "
          f"(passing tests: ceiling {first['ceiling_passed']}, oracle {plain_passed})")
    print(f"identical verdicts: {len(suites) - len(mismatches)}/{len(suites)}"
          f"{f' in each of {len(rounds)} rounds' if len(rounds) > 1 and not mismatches else ''}")
    for i in mismatches[:5]:
        print(f"  suite {i}: oracle {ours[i].outcome_strings()} vs study {theirs[i].outcome_strings()}", file=sys.stderr)  # type: ignore[index]
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
