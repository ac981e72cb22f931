"""Timer: timeit.Timer made aware of ember (warm-up, a fixed thread count, replicates).

blocked_autorange picks a block size (runs per measurement) by growing it tenfold until the
timer's own overhead is negligible, then measures blocks until min_run_time has passed;
adaptive_autorange keeps measuring until the spread is small. Only Python statements are
timed: C++ statements (language=Language.CPP) and Callgrind instruction counts need torch's
compiled toolchain and raise NotImplementedError.
"""
from __future__ import annotations

import enum
import textwrap
import timeit
from typing import Callable

import numpy as np

from . import common
from .valgrind_wrapper.timer_interface import CopyIfCallgrind

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock (ember runs on the CPU: nothing to synchronize)."""
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _dedent(code: str) -> str:
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times `stmt` (a string of Python code, run after `setup` with `globals`; `torch` is
    defined). label, sub_label, description and env name the result for printing and for
    Compare; num_threads sets the thread count while timing (1 by default)."""

    _timer_cls = timeit.Timer

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: dict | None = None,
                 label: str | None = None, sub_label: str | None = None,
                 description: str | None = None, env: str | None = None,
                 num_threads: int = 1, language: Language | str = Language.PYTHON) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("Timer(language=Language.CPP): ember times Python "
                                      "statements only (C++ timing compiles against libtorch).")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                             "this code can simply be moved to `setup`.")
        import ember   # the `torch` the timed code sees
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", ember)
        self._language = Language.PYTHON
        stmt, setup = _dedent(stmt), _dedent(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer,
                                      globals=CopyIfCallgrind.unwrap_all(self._globals))
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number: int, times: list[float]) -> common.Measurement:
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """One measurement of `number` runs, after a warm-up of number // 100 runs."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return self._measurement(number, [self._timeit(number)])

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable | None = None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """Runs per block: grown tenfold until the clock's overhead is under 1e-4 of a
        block lasting at least min_run_time / 1000 (or a block outlasts min_run_time)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure_blocks(self, number: int, can_stop: Callable[[list], bool],
                        min_run_time: float, max_run_time: float | None,
                        callback: Callable | None) -> list[float]:
        times: list[float] = []
        total = 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                times.append(self._timeit(number))
                total += times[-1]
                if callback:
                    callback(number, times[-1])
                if total >= min_run_time and can_stop(times):
                    break
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback: Callable | None = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Blocks of a fixed number of runs, measured until min_run_time seconds in all."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure_blocks(number, lambda times: True, min_run_time, None, callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Callable | None = None) -> common.Measurement:
        """Blocks measured until there are more than 3, min_run_time has passed and the
        IQR is under `threshold` of the median, or max_run_time has passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def can_stop(times: list) -> bool:
            return len(times) > 3 and self._measurement(number, times).meets_confidence(
                threshold=threshold)

        times = self._measure_blocks(number, can_stop, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number: int = 100, *, repeats: int | None = None,
                          collect_baseline: bool = True, retain_out_file: bool = False):
        raise NotImplementedError("Timer.collect_callgrind: ember cannot count instructions "
                                  "with Callgrind (it needs torch's C++ valgrind bindings); "
                                  "use blocked_autorange for wall times.")
