"""DataLoader workloads: one shuffled epoch over MNIST-sized data (60,000 samples of
shape (1, 28, 28), batch 64) with 0 and 2 worker processes, in batches/s including
worker start-up; and how long breaking out of a 2-worker loop takes. The data is held
two ways: a TensorDataset (which ember's loader gathers a batch at a time), and a
Dataset subclass whose __getitem__ returns one (image tensor, Python int label) pair,
so that the loader indexes 64 times and default_collate stacks the samples.

The epochs are timed twice, both libraries alike each time. First in this process,
which holds torch and ember side by side: every worker is a fork of both libraries and
both datasets, and copying (then dropping) the page tables of torch's heap and its
4 KB-paged dataset costs each ember worker about 4 ms of the main process's time and
5 ms of its own, against 1 and 2 ms without torch - a 0-worker epoch takes about 40 ms.
Then each library in a fresh process of its own ("own process"), as a program using
only that library runs; the libraries take turns, and the best of the rounds counts.
"""
from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from .runner import LIBS, compare, load, prepare, print_row, time_call

SAMPLES, BATCH = 60_000, 64
WORKERS = (0, 2)
OWN_PROCESS_ROUNDS = 3


def _tensor_dataset(lib):
    rng = np.random.default_rng(0)
    images = lib.tensor(rng.standard_normal((SAMPLES, 1, 28, 28), dtype=np.float32))
    labels = lib.tensor(rng.integers(0, 10, SAMPLES))
    return lib.utils.data.TensorDataset(images, labels)


def _subclass_dataset(lib):
    class RandomImages(lib.utils.data.Dataset):
        """60,000 random (1, 28, 28) float32 images with Python-int labels."""

        def __init__(self):
            rng = np.random.default_rng(0)
            self.images = lib.tensor(rng.standard_normal((SAMPLES, 1, 28, 28),
                                                         dtype=np.float32))
            self.labels = rng.integers(0, 10, SAMPLES).tolist()

        def __len__(self):
            return SAMPLES

        def __getitem__(self, index):
            return self.images[index], self.labels[index]
    return RandomImages()


DATASETS = {"TensorDataset": _tensor_dataset, "Dataset subclass": _subclass_dataset}


def epoch(num_workers: int, dataset=_tensor_dataset):
    def setup(lib):
        loader = lib.utils.data.DataLoader(dataset(lib), batch_size=BATCH, shuffle=True,
                                           num_workers=num_workers)

        def step():
            for _ in loader:
                pass
        return step, len(loader)
    return setup


def early_exit_seconds(lib, trials: int = 3) -> float:
    """Median time from `break` (after the first batch) until the loop statement is done
    and the workers are gone."""
    loader = lib.utils.data.DataLoader(_tensor_dataset(lib), batch_size=BATCH, shuffle=True,
                                       num_workers=2)
    times = []
    for _ in range(trials):
        start = None
        for _ in loader:
            start = time.perf_counter()
            break
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def own_process_rates(column: str) -> dict[int, float]:
    """Batches/s per number of workers over the TensorDataset, timed in a fresh process
    holding only `column`'s library (see _measure_here)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-m", "bench.data", column], cwd=root,
                          capture_output=True, text=True, check=True, timeout=600)
    rates = json.loads(done.stdout.strip().splitlines()[-1])
    return {int(workers): rate for workers, rate in rates.items()}


def _measure_here(column: str) -> None:
    steps = {workers: prepare(column, epoch(workers)) for workers in WORKERS}
    gc.collect()
    gc.freeze()  # as compare() does
    print(json.dumps({workers: units / time_call(step, min_seconds=0.5)
                      for workers, (step, units) in steps.items()}))


def run() -> None:
    for kind, dataset in DATASETS.items():
        for workers in WORKERS:
            compare(f"DataLoader {kind} epoch, {workers} workers",
                    epoch(workers, dataset), unit="batch/s", higher_is_better=True,
                    min_seconds=0.5, rounds=1)
    exits = {name: early_exit_seconds(load(name)) * 1e3 for name in ("torch", "ember")}
    print_row("DataLoader break after 1st batch, 2 workers", exits, "ms", {}, False)
    best = {column: dict.fromkeys(WORKERS, 0.0) for column in LIBS}
    for _ in range(OWN_PROCESS_ROUNDS):
        for column in best:
            for workers, rate in own_process_rates(column).items():
                best[column][workers] = max(best[column][workers], rate)
    for workers in WORKERS:
        rates = {column: best[column][workers] for column in LIBS}
        ratios = {f"{column} ratio": rates[column] / rates["torch"] for column in LIBS
                  if column != "torch"}
        print_row(f"DataLoader epoch, {workers} workers, own process", rates, "batch/s",
                  ratios, True)
    print(f"{'ember 2-worker / 0-worker rate, own process':<44} "
          f"{best['ember'][2] / best['ember'][0]:.2f}")


if __name__ == "__main__":
    _measure_here(sys.argv[1])
