"""Time workloads on torch and ember in one process, interleaved so that machine noise
hits both alike, and print each figure with the ember/torch ratio.

A workload is a function `setup(lib)` taking the library module (torch or ember) and
returning `(step, units)`: a zero-argument callable doing one unit of work, and how
many units of the reported quantity one call represents (e.g. 200 ops).

Each workload runs three times over: on torch, on ember with its default kernels
(numba's where it is installed, the ember[fast] extra), and as `ember[numpy]`: ember
with `ember.backends.cpu.flags(kernels="numpy")` around its setup and every step, the
NumPy reference kernels that an install without numba runs. `python -m bench --doctor`
adds a fourth column, `ember+doctor`: ember with ember.doctor's checks on during setup and
every step (one doctor session for the whole workload, as `ember run --doctor` keeps).
"""
from __future__ import annotations

import functools
import gc
import importlib
import time


NUMPY_KERNELS = "ember[numpy]"   # ember on its NumPy kernels, the third column
DOCTOR = "ember+doctor"          # ember with the doctor's checks on (--doctor)
LIBS = ("torch", "ember", NUMPY_KERNELS)
EXTRA_COLUMNS: list = []         # columns the command line adds to LIBS


def load(name: str):
    """The library module a column runs on (ember for every ember column)."""
    return importlib.import_module("ember" if name in (NUMPY_KERNELS, DOCTOR) else name)


def prepare(name: str, setup):
    """(step, units) of workload `setup` on column `name`: the ember[numpy] column sets
    up and runs every step with the NumPy kernels chosen."""
    lib = load(name)
    if name == DOCTOR:
        return _with_doctor(lib, setup)
    if name != NUMPY_KERNELS:
        return setup(lib)
    numpy_kernels = functools.partial(lib.backends.cpu.flags, kernels="numpy")
    with numpy_kernels():
        step, units = setup(lib)

    def step_on_numpy_kernels():
        with numpy_kernels():
            return step()
    return step_on_numpy_kernels, units


def _with_doctor(lib, setup):
    """(step, units) of `setup` with one doctor session on around the setup and each step,
    and off in between (the other columns run in this thread too)."""
    from ember.doctor._doctor import Doctor
    state, session = lib._modes.own(), Doctor()

    def checked(fn):
        state.doctor = session
        try:
            return fn()
        finally:
            state.doctor = None
    step, units = checked(lambda: setup(lib))
    return (lambda: checked(step)), units


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
            min_seconds: float = 1.0, rounds: int = 3, libs=None,
            higher_is_better: bool = False) -> dict:
    """Run `setup` on each library column, alternating rounds; print each column's best
    figure and each ember column's ratio to torch. Returns {column: figure} plus
    {column + " ratio": ratio} for the ember columns. The columns are LIBS and
    EXTRA_COLUMNS unless `libs` names others."""
    libs = libs or (*LIBS, *EXTRA_COLUMNS)
    steps = {lib: prepare(lib, setup) for lib in libs}
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
    ratios = {f"{lib} ratio": ratio(figures, lib, higher_is_better)
              for lib in libs if lib != "torch"}
    print_row(name, shown, unit, ratios, higher_is_better)
    return {**shown, **ratios}


def ratio(figures: dict, lib: str, higher_is_better: bool) -> float:
    """lib's time (or throughput, when higher is better) over torch's."""
    if "torch" not in figures:
        return float("nan")
    value = figures[lib] / figures["torch"]
    return 1.0 / value if higher_is_better else value


def print_row(name: str, shown: dict, unit: str, ratios: dict,
              higher_is_better: bool) -> None:
    """One line: the figure of each column, then each ember column's ratio to torch."""
    figures = "  ".join(f"{lib} {value:>9.2f}" for lib, value in shown.items())
    line = f"{name:<44} {figures} {unit:<8}"
    if ratios:
        line += "  " + ("throughput" if higher_is_better else "time") + ": " + "  ".join(
            f"{key.removesuffix(' ratio')}/torch {value:5.2f}" for key, value in ratios.items())
    print(line)
