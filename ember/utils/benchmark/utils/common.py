"""What a Timer measured (Measurement), the task it timed (TaskSpec), and the number
formatting shared with Compare.

Statistics follow torch's: quantiles interpolate linearly, and the unit and significant-figure
arithmetic runs in float32 as torch's does on its default-dtype tensors, so the printed units
and digits agree with torch's for the same times.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import textwrap
from typing import Any, Iterable, Iterator

import numpy as np

from ...._cpu.threads import get_num_threads, set_num_threads

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9          # seconds: no measurement is trusted below 25 ns
_IQR_WARN_THRESHOLD = 0.1                 # IQR / median above this: "system fluctuation"
_IQR_GROSS_WARN_THRESHOLD = 0.25          # above this: "significant environmental influence"
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_UNIT_NAMES = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def _f32(x) -> np.float32:
    return np.float32(x)


def log10_f32(x: float) -> float:
    """log10 of x as a float32 (torch computes it on a float32 tensor): rounded from the
    float64 result, as NumPy's own float32 log10 can be an ulp off (log10(1e-3) != -3)."""
    return float(np.float32(np.log10(np.float64(np.float32(x)))))


def select_unit(t: float) -> tuple[str, float]:
    """(unit, seconds per unit) that shows `t` seconds with a few leading digits."""
    thousands = int(log10_f32(t) // 3)
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(thousands, "s")
    return unit, _UNITS[unit]


def unit_to_english(u: str) -> str:
    return _UNIT_NAMES[u]


def trim_sigfig(x: float, n: int) -> float:
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(np.ceil(log10_f32(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(np.round(_f32(x / scale)) * _f32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with the intra-op thread count set to `n`."""
    prior = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior)


@dataclasses.dataclass(frozen=True, repr=False)
class TaskSpec:
    """What a Timer times (its statements and labels; not its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or a one-line stmt), with ': sub_label' when there is one."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup in ("", "pass"):
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """Title, description and setup, a multi-line part followed by a blank line."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(field.name for field in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of `number_per_run` runs of a task, once per entry of raw_times.
    Reads its task's fields (stmt, label, num_threads, ...) as its own. Picklable."""
    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict | None = None          # for the user; merge drops it

    def __post_init__(self) -> None:
        self._stats: dict | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        """Seconds per run, one per measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    def _lazy_stats(self) -> dict:
        if self._stats is None:
            times = np.array(sorted(self.times), dtype=np.float64)
            p25, median, p75 = np.quantile(times, [0.25, 0.5, 0.75]).tolist()
            self._stats = {"sorted": tuple(times.tolist()), "median": median,
                           "mean": float(times.mean()), "p25": p25, "p75": p75}
        return self._stats

    @property
    def median(self) -> float:
        return self._lazy_stats()["median"]

    @property
    def mean(self) -> float:
        return self._lazy_stats()["mean"]

    @property
    def iqr(self) -> float:
        stats = self._lazy_stats()
        return stats["p75"] - stats["p25"]

    @property
    def significant_figures(self) -> int:
        """How many leading digits of the median the spread of the middle half supports
        (a 90% confidence interval), between 1 and 4. Compare uses it to trim digits."""
        times = self._lazy_stats()["sorted"]
        middle = np.array(times[len(times) // 4:int(np.ceil(_f32(3 * len(times) / 4)))],
                          dtype=np.float32)
        std = float(middle.std())
        sqrt_n = float(np.sqrt(_f32(len(middle))))
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        figures = int(np.floor(log10_f32(self.median / interval)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def _warnings(self) -> tuple[str, ...]:
        if not self.raw_times:
            return ()
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            message = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            message = "This could indicate system fluctuation."
        else:
            return ()
        return (f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% "
                f"of the median measurement.\n           {message}",)

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings)

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        stats = self._lazy_stats()
        n = len(stats["sorted"])
        unit, scale = select_unit(stats["median"])
        lines = [f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>",
                 self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{stats['median'] / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({stats['p25'] / scale:.2f} to {stats['p75'] / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        lines += self._warnings
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One Measurement per distinct task, holding the per-run times of all its
        replicates (number_per_run=1, no metadata)."""
        groups: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.items()]
