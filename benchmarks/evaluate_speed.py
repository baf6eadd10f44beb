"""The post-encoding step of one model against its encoding, on the bundled dataset.

On a GPU the encoding of ExecRetrieval takes seconds, so what comes after it must be cheap. This
measures, in one run:

(a) encoding: mteb encodes the model on the dataset and saves predictions and frozen embeddings
    (``results.encode.encode``, exactly what ``execretrieval run`` does first);
(b) post-encoding, with a cold local cache: verdicts of every top-10 pair (dataset cache, static
    proof, oracle), metrics, the evaluation file, then the leaderboard with intervals and paired
    tests and every analysis (``results.outputs.finish``), with and without figures.

Prints both times, the split of (b), and (b) against the target of 10 s on 2 cores. Times are wall
clock (the machine's load is printed beside them); CPU time is printed too, since a busy machine
stretches wall time but not CPU time.

    .venv/bin/python benchmarks/evaluate_speed.py [--model all-MiniLM-L6-v2|bm25] [--data DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _timed(step: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = step()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--data", default=None, help="dataset (default: the bundled one)")
    parser.add_argument("--repeat", type=int, default=1, help="post-encoding rounds, each with a cold cache")
    args = parser.parse_args()

    from execretrieval_mteb.mteb_task.models import load, resolve
    from execretrieval_mteb.mteb_task.registration import ensure_registered
    from execretrieval_mteb.mteb_task.task import load_task
    from execretrieval_mteb.results.encode import encode, identity_of
    from execretrieval_mteb.results.outputs import finish, write_evaluation
    from execretrieval_mteb.results.predictions import evaluate_predictions
    from execretrieval_mteb.results.results_folder import ResultsFolder

    ensure_registered()
    task = load_task(args.data)
    dataset = task.built
    model = load(resolve(args.model), "cpu")
    work = Path(tempfile.mkdtemp(prefix="execretrieval-evaluate-speed-"))
    try:
        encoded_folder = ResultsFolder(work / "encoded")
        encoded, enc_wall, enc_cpu = _timed(lambda: encode(model, task, encoded_folder, batch_size=32, progress=False))
        rounds = []
        for round_ in range(args.repeat):
            folder = ResultsFolder(work / f"round{round_}")
            shutil.copytree(encoded_folder.root / "predictions", folder.root / "predictions")
            if (encoded_folder.root / "embeddings").is_dir():
                shutil.copytree(encoded_folder.root / "embeddings", folder.root / "embeddings")
            evaluation, v_wall, v_cpu = _timed(lambda: evaluate_predictions(
                folder.predictions(encoded.slug), dataset, identity_of(model), oracle_cache=folder.oracle_cache))
            _, w_wall, w_cpu = _timed(lambda: write_evaluation(folder, evaluation, dataset))
            _, s_wall, s_cpu = _timed(lambda: finish(folder, dataset, figures=False))
            _, f_wall, f_cpu = _timed(lambda: finish(folder, dataset, figures=True))
            rounds.append((v_wall, w_wall, s_wall, f_wall, v_cpu + w_cpu + f_cpu))
            counts = ", ".join(f"{n} {s.value}" for s, n in evaluation.checked.counts().items() if n)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def med(i: int) -> float:
        return statistics.median(r[i] for r in rounds)

    post = med(0) + med(1) + med(3)
    print(f"dataset: {len(dataset.queries)} queries, {len(dataset.corpus)} snippets; model {encoded.identity.name}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"(a) encoding (mteb, CPU):                 {enc_wall:8.2f} s wall  {enc_cpu:8.2f} s CPU")
    print(f"(b) post-encoding, cold local cache:      {post:8.2f} s wall  {med(4):8.2f} s CPU   (median of {len(rounds)})")
    print(f"    verdicts + metrics ({counts}): {med(0):.2f} s")
    print(f"    evaluation file:                      {med(1):8.2f} s")
    print(f"    statistics + analyses, no figures:    {med(2):8.2f} s")
    print(f"    statistics + analyses + figures:      {med(3):8.2f} s")
    print(f"(b) / (a) = {post / enc_wall:.3f}; target (b) < 10 s on 2 cores: {'met' if post < 10 else 'NOT met'} "
          f"({post:.1f} s wall, {med(4):.1f} s CPU)")


if __name__ == "__main__":
    main()
