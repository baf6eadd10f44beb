"""How the wild-corpus builder scales: build time and peak memory at two sizes, side by side, and the ratios.

The issue asks for a builder that "scales to a million functions for users with GPUs". This
machine's environment holds about 43,000 functions, so the benchmark writes a synthetic
``site-packages`` with one MIT-licensed distribution of N distinct, self-contained functions
(20 to a module, 3-12 lines each, every one different) and builds a wild corpus from it alone
(``build_wild(site_dirs=..., packages=["synthwild"])``; CPU time includes its helper processes), each size in a fresh subprocess so that
its peak resident memory is its own. Then, again per size in a subprocess, it loads the built
corpus (``dataset.wild.load_wild``: verified, then every record in memory, as the open task needs).

Prints per size: functions kept, build wall and CPU seconds, functions per CPU second, the build's
peak RSS, the corpus size on disk, and the load's time and peak RSS; then the ratios large/small of
size, build CPU time and build peak RSS. Linear time and flat build memory mean the build streams.

    .venv/bin/python benchmarks/wild_scale.py [--small 20000] [--large 200000]   # --large 1000000 takes ~15 CPU-min
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

PER_MODULE = 20
DIST = "synthwild"

BUILD = """
import json, resource, sys, time
from pathlib import Path
from execretrieval_mteb.construction.wild.build import build_wild
site, out = Path(sys.argv[1]), Path(sys.argv[2])
wall = time.perf_counter()
built = build_wild(out, site_dirs=[site], packages=["synthwild"])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"functions": built.functions, "wall": time.perf_counter() - wall,
                  "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                  "rss_mb": max(me.ru_maxrss, kids.ru_maxrss) / 1024}))
"""

LOAD = """
import json, resource, sys, time
from execretrieval_mteb.dataset.wild import load_wild
wall = time.perf_counter()
wild = load_wild(sys.argv[1])
print(json.dumps({"records": len(wild.records), "wall": time.perf_counter() - wall,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _function(i: int) -> str:
    """A distinct self-contained function: the index sets its name, its constants and its length."""
    extra = "".join(f"    total += (x * {i % 97 + k} + {k}) % {i % 13 + 2}\n" for k in range(i % 10))
    return (f"def f_{i}(values, limit={i % 50 + 1}):\n"
            f"    total = {i}\n"
            f"    for x in values:\n"
            f"        if x > limit:\n"
            f"            total -= x // {i % 7 + 2}\n"
            f"{extra.replace('    total', '        total')}"
            f"    return total\n")


def write_site(root: Path, n: int) -> Path:
    """``root/site-packages`` with distribution ``synthwild`` of ``n`` functions (MIT, files in its RECORD)."""
    site = root / "site-packages"
    package = site / DIST
    package.mkdir(parents=True)
    info = site / f"{DIST}-1.0.dist-info"
    info.mkdir()
    files = []
    for start in range(0, n, PER_MODULE):
        rel = f"{DIST}/m_{start // PER_MODULE:06d}.py"
        (site / rel).write_text("\n\n".join(_function(i) for i in range(start, min(n, start + PER_MODULE))))
        files.append(rel)
    (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {DIST}\nVersion: 1.0\nLicense-Expression: MIT\n")
    record = [f"{rel},," for rel in files] + [f"{DIST}-1.0.dist-info/{name},," for name in ("METADATA", "RECORD")]
    (info / "RECORD").write_text("\n".join(record) + "\n")
    return site


def _run(code: str, *args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(n: int, tmp: Path) -> dict[str, float]:
    site = write_site(tmp / f"n{n}", n)
    out = tmp / f"n{n}" / "wild"
    built = _run(BUILD, str(site), str(out))
    loaded = _run(LOAD, str(out))
    size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
    return {**built, "disk_mb": size, "load_wall": loaded["wall"], "load_rss_mb": loaded["rss_mb"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--large", type=int, default=200_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="wild-scale-") as tmp:
        for n in (args.small, args.large):
            started = time.perf_counter()
            rows[n] = measure(n, Path(tmp))
            r = rows[n]
            print(f"{n:>9,} functions: kept {r['functions']:,}; build {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU "
                  f"({r['functions'] / max(r['cpu'], 1e-9):,.0f}/CPU s), peak RSS {r['rss_mb']:.0f} MB; "
                  f"{r['disk_mb']:.1f} MB on disk; load {r['load_wall']:.1f} s, peak RSS {r['load_rss_mb']:.0f} MB "
                  f"({time.perf_counter() - started:.0f} s with writing the sources)")
    small, large = rows[args.small], rows[args.large]
    print(f"ratios large/small: functions {large['functions'] / small['functions']:.1f}x, "
          f"build CPU {large['cpu'] / small['cpu']:.1f}x, build peak RSS {large['rss_mb'] / small['rss_mb']:.2f}x, "
          f"load peak RSS {large['load_rss_mb'] / small['load_rss_mb']:.2f}x")


if __name__ == "__main__":
    main()
