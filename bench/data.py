"""DataLoader workloads: one shuffled epoch over an MNIST-sized TensorDataset (60,000
samples of shape (1, 28, 28), batch 64) with 0 and 2 worker processes, in batches/s
including worker start-up; and how long breaking out of a 2-worker loop takes."""
from __future__ import annotations

import statistics
import time

import numpy as np

from .runner import compare, load

SAMPLES, BATCH = 60_000, 64


def _dataset(lib):
    rng = np.random.default_rng(0)
    images = lib.tensor(rng.standard_normal((SAMPLES, 1, 28, 28), dtype=np.float32))
    labels = lib.tensor(rng.integers(0, 10, SAMPLES))
    return lib.utils.data.TensorDataset(images, labels)


def epoch(num_workers: int):
    def setup(lib):
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=BATCH, shuffle=True,
                                           num_workers=num_workers)

        def step():
            for _ in loader:
                pass
        return step, len(loader)
    return setup


def early_exit_seconds(lib, trials: int = 3) -> float:
    """Median time from `break` (after the first batch) until the loop statement is done
    and the workers are gone."""
    loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=BATCH, shuffle=True,
                                       num_workers=2)
    times = []
    for _ in range(trials):
        start = None
        for _ in loader:
            start = time.perf_counter()
            break
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run() -> None:
    for workers in (0, 2):
        compare(f"DataLoader MNIST-size epoch, {workers} workers", epoch(workers),
                unit="batch/s", higher_is_better=True, min_seconds=0.5, rounds=1)
    exits = {name: early_exit_seconds(load(name)) * 1e3 for name in ("torch", "ember")}
    print(f"{'DataLoader break after 1st batch, 2 workers':<44} torch {exits['torch']:>10.2f} "
          f"{'ms':<10} ember {exits['ember']:>10.2f} {'ms':<10}")
