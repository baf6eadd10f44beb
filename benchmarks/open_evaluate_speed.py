"""Post-encoding evaluation of one model on ExecRetrievalOpen, next to that model's encoding time.

The open pool's cost is in two places: encoding ~48,000 snippets (minutes per model on CPU, once;
recorded by ``execretrieval run --open`` in ``open/timing/<model>.json``) and, after it, judging
every top-10 pair by execution, most of them wild functions that no cache of the dataset knows.
This benchmark takes a results folder where ``execretrieval run --open -m MODEL`` has run (it does
not encode again: the machine is shared) and measures, on its saved predictions:

(a) cold: the whole post-encoding evaluation (``evaluate_open_predictions``: benchmark pairs through
    the dataset cache and static proof, every wild pair of the top 10 executed in the sandbox with
    its target bound, the reference check of every wild function that passes, the scores) with an
    empty oracle cache, so that every wild pair really runs; then writing the evaluation file and
    the closed-vs-open report;
(b) warm: the same with the cache (a) filled, i.e. what a rerun costs (cache first).

Prints the encoding time, (a), (b), their ratio to the target (30 s on two cores), the pair counts,
and the machine's load (wall time stretches on a busy machine, CPU time does not).

    .venv/bin/python benchmarks/open_evaluate_speed.py RESULTS [--model sentence-transformers/all-MiniLM-L6-v2] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

TARGET_S = 30.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a results folder of `execretrieval run --open`")
    parser.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    parser.add_argument("--wild", type=Path, default=None, help="wild corpus folder (default: this environment's)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from execretrieval_mteb.construction.wild.store import ensure_wild
    from execretrieval_mteb.dataset.wild import open_pool
    from execretrieval_mteb.results.open_results import (
        evaluate_open_predictions, finish_open, open_predictions, write_open_evaluation,
    )
    from execretrieval_mteb.results.results_folder import ResultsFolder, model_slug
    from execretrieval_mteb.mteb_task.data_source import load_built_source

    folder = ResultsFolder(args.results)
    slug = model_slug(args.model)
    timing = folder.root / "open" / "timing" / f"{slug}.json"
    encoding = json.loads(timing.read_text())["encode_and_search_seconds"] if timing.is_file() else None
    pool = open_pool(load_built_source(None), ensure_wild(args.wild))
    path = open_predictions(folder, slug)
    print(f"open pool: {len(pool.closed.queries)} queries, {len(pool.closed.corpus)} benchmark + {len(pool.wild):,} wild "
          f"snippets; workers {args.workers}; cores {len(os.sched_getaffinity(0))}; load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "oracle.sqlite"
        rounds = {}
        for name in ("cold", "warm"):
            wall, cpu = time.perf_counter(), time.process_time()
            evaluation = evaluate_open_predictions(path, pool, workers=args.workers, oracle_cache=cache)
            scored = time.perf_counter() - wall
            write_open_evaluation(folder, evaluation, pool)
            finish_open(folder, pool)
            rounds[name] = (time.perf_counter() - wall, scored, time.process_time() - cpu)
    counts = evaluation.wild_counts()
    print(f"wild pairs in the top 10: {sum(counts.values())} ("
          + ", ".join(f"{n} {j.value}" for j, n in counts.items()) + "); benchmark pairs: "
          + ", ".join(f"{n} {s.value}" for s, n in evaluation.closed_checked.counts().items() if n))
    print(f"(enc) encoding + search ({args.model}): "
          + (f"{encoding:.0f} s (from {timing})" if encoding is not None else "not recorded (run `execretrieval run --open`)"))
    for name, (total, scored, cpu) in rounds.items():
        print(f"({name}) post-encoding evaluation: {total:.1f} s wall (judging and scoring {scored:.1f} s; "
              f"this process's CPU {cpu:.1f} s, sandbox workers not counted); target {TARGET_S:.0f} s: "
              f"{total / TARGET_S:.2f}x of it")
    if encoding is not None:
        print(f"encoding / cold post-encoding: {encoding / rounds['cold'][0]:.1f}x")
    print(f"exec@1 open {evaluation.report.means()['exec_at_1']:.3f}, tests alone "
          f"{evaluation.tests_only.means()['exec_at_1']:.3f}")


if __name__ == "__main__":
    main()
