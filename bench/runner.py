"""Time workloads on torch and ember in one process, interleaved so that machine noise
hits both alike, and print each figure with the ember/torch ratio.

A workload is a function `setup(lib)` taking the library module (torch or ember) and
returning `(step, units)`: a zero-argument callable doing one unit of work, and how
many units of the reported quantity one call represents (e.g. 200 ops).
"""
from __future__ import annotations

import gc
import importlib
import time


def load(name: str):
    return importlib.import_module(name)


def time_call(step, min_seconds: float) -> float:
    """Seconds per call of `step`: the fastest of several batches lasting about
    `min_seconds` in all. Other load on the machine only ever adds time, so the minimum
    is the most repeatable estimate."""
    step()  # warm up
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < min_seconds / 5 or calls < 1:
        step()
        calls += 1
    per_batch = max(1, calls)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(per_batch):
            step()
        samples.append((time.perf_counter() - start) / per_batch)
    return min(samples)


def compare(name: str, setup, unit: str = "us/op", scale: float = 1e6,
            min_seconds: float = 1.0, rounds: int = 3, libs=("torch", "ember"),
            higher_is_better: bool = False) -> dict:
    """Run `setup` on each library, alternating rounds; print medians and the ratio."""
    steps = {}
    for lib_name in libs:
        step, units = setup(load(lib_name))
        steps[lib_name] = (step, units)
    # Both libraries' module objects now sit in the process; freeze them so the garbage
    # collector does not rescan one library's heap while the other is being timed.
    gc.collect()
    gc.freeze()
    results = {lib: [] for lib in libs}
    for _ in range(rounds):
        for lib in libs:
            step, units = steps[lib]
            results[lib].append(time_call(step, min_seconds) / units)
    figures = {lib: min(v) for lib, v in results.items()}
    shown = {lib: (1.0 / t if higher_is_better else t * scale) for lib, t in figures.items()}
    ratio = figures["ember"] / figures["torch"] if "torch" in figures else float("nan")
    label = "ember/torch time" if not higher_is_better else "ember/torch throughput"
    value = 1.0 / ratio if higher_is_better else ratio
    print(f"{name:<44} torch {shown.get('torch', float('nan')):>10.2f} {unit:<10} "
          f"ember {shown['ember']:>10.2f} {unit:<10} {label} {value:6.2f}")
    return {"torch": shown.get("torch"), "ember": shown["ember"], "ratio": value}
