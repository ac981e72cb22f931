"""The profiler's results: FunctionEvent (one range), FunctionEventAvg (a group of
them) and EventList (a list of either, with torch's table, averaging and trace export).
Times are microseconds, as in torch."""
from __future__ import annotations

import json
import os
from collections import defaultdict

from ._table import build_table, format_time


def step_key(name: str) -> str:
    """Profiler steps are numbered ('ProfilerStep#3'); the table groups them as one row."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


class Interval:
    def __init__(self, start: float, end: float):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class _TimesMixin:
    """Attributes shared by events and averages (the subclass sets the *_total ones)."""

    # ember profiles the CPU only: device times and memory are always zero.
    device_time_total = self_device_time_total = 0.0
    cpu_memory_usage = self_cpu_memory_usage = 0
    device_memory_usage = self_device_memory_usage = 0
    node_id = -1
    is_async = False
    is_legacy = False
    use_device = None
    overload_name = ""

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self) -> float:
        return 0.0

    cuda_time = device_time
    cuda_time_total = self_cuda_time_total = 0.0

    cpu_time_str = property(lambda self: format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: format_time(self.self_cpu_time_total))


class FunctionEvent(_TimesMixin):
    """One recorded range: an op, a backward node or a record_function block."""

    count = 1

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float,
                 input_shapes: list, is_user_annotation: bool = False, trace_name: str = "",
                 flops: int = 0):
        self.id = id
        self.flops = flops        # estimated when profiling with_flops, else 0
        self.name = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes
        self.is_user_annotation = is_user_annotation
        self.trace_name = trace_name or name    # 'ProfilerStep#3' for name 'ProfilerStep*'
        self.cpu_children = []
        self.cpu_parent = None
        self.stack = []

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        """Own time: the total minus the time spent in child ranges."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        children = [c.id for c in self.cpu_children]
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={children} thread={self.thread} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg(_TimesMixin):
    """The events sharing a key (name, optionally input shapes): summed times, call count."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.flops = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.cpu_parent = None
        self.is_user_annotation = False
        self.stack = []

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:    # the first event of the group names it
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.cpu_parent = other.cpu_parent
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.flops += other.flops
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvent or FunctionEventAvg."""

    def __init__(self, *args, use_device=None, profile_memory: bool = False,
                 with_flops: bool = False):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    def __str__(self) -> str:
        return self.table()

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """torch's summary table: one row per event, columns as torch prints them."""
        return build_table(self, sort_by=sort_by, row_limit=row_limit,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           top_level_events_only=top_level_events_only, time_unit=time_unit,
                           with_flops=self._with_flops)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One FunctionEventAvg per event name (and input shapes, when grouped by them)."""
        if group_by_stack_n:
            raise NotImplementedError("key_averages: group_by_stack_n is not supported by ember "
                                      "(it records no stacks)")
        groups = defaultdict(FunctionEventAvg)
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            groups[key].add(event)
        averages = EventList(groups.values(), use_device=self._use_device,
                             with_flops=self._with_flops)
        if not group_by_input_shapes:
            for average in averages:
                average.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for event in self:
            total.add(event)
        total.key = "Total"
        return total

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (JSON, opened by chrome://tracing, Perfetto)."""
        write_chrome_trace(self, path)


def write_chrome_trace(events, path: str, base_time_ns: int = 0) -> None:
    with open(path, "w") as f:
        json.dump(chrome_trace(events, path, base_time_ns), f)


def chrome_trace(events, trace_name: str, base_time_ns: int = 0) -> dict:
    """The Chrome trace document: complete ('X') events in microseconds plus metadata."""
    pid = os.getpid()
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0,
              "args": {"name": "python"}}]
    for event in events:
        args = {"External id": event.id}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
        trace.append({"ph": "X", "cat": "user_annotation" if event.is_user_annotation
                      else "cpu_op", "name": event.trace_name, "pid": pid, "tid": event.thread,
                      "ts": event.time_range.start, "dur": event.cpu_time_total, "args": args})
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
            "baseTimeNanoseconds": base_time_ns, "traceEvents": trace, "traceName": trace_name}


def build_events(ranges, start_ns: int, first_id: int = 1,
                 with_flops: bool = False) -> EventList:
    """FunctionEvents (with parent/children links) from a recorder's finished ranges."""
    events = EventList(with_flops=with_flops)
    by_range = {}
    for number, rng in enumerate(ranges, first_id):
        if rng.end_ns is None:      # still open when the profiler stopped: not recorded
            continue
        event = FunctionEvent(number, step_key(rng.name), rng.thread,
                              (rng.start_ns - start_ns) / 1000.0,
                              (rng.end_ns - start_ns) / 1000.0, rng.shapes,
                              rng.is_user_annotation, trace_name=rng.name, flops=rng.flops)
        parent = by_range.get(id(rng.parent))
        if parent is not None:
            event.cpu_parent = parent
            parent.cpu_children.append(event)
        by_range[id(rng)] = event
        events.append(event)
    return events
