"""torch.autograd.profiler: time ember's ops (forward and backward) on the CPU.

    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        with ember.autograd.profiler.record_function("forward"):
            loss = model(x).sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

Ops are named as torch names them ('aten::mm', 'aten::add', ...), backward nodes as
'autograd::engine::evaluate_function: MmBackward0' around 'MmBackward0'.
"""
from __future__ import annotations

from ..profiler import _recorder
from ..profiler._record_function import record_function
from ..profiler._events import (EventList, FunctionEvent, FunctionEventAvg, build_events,
                                write_chrome_trace)

__all__ = ["profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent",
           "FunctionEventAvg"]


def check_supported(record_cuda: bool = False, profile_memory: bool = False,
                    with_stack: bool = False, with_modules: bool = False,
                    experimental_config=None) -> None:
    """Refuse the profiler options ember cannot honour (it only times CPU ops)."""
    unsupported = {"use_cuda/use_device": record_cuda, "profile_memory": profile_memory,
                   "with_stack": with_stack, "with_modules": with_modules,
                   "experimental_config": experimental_config is not None}
    for option, requested in unsupported.items():
        if requested:
            raise NotImplementedError(f"profiler: {option} is not supported by ember (it "
                                      "records CPU op times and input shapes only)")


class profile:
    """Record the ember ops run inside the block; read them with key_averages()/table()."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        check_supported(use_cuda or use_device is not None, profile_memory, with_stack,
                        with_modules, experimental_config)
        if activity_filters is not None:
            raise NotImplementedError("profiler: activity_filters is not supported by ember")
        self.enabled = enabled
        self.use_cpu = use_cpu
        self.with_flops = with_flops
        self.record_shapes = record_shapes or with_flops   # FLOPs are estimated from shapes
        self.acc_events = acc_events
        self.function_events = EventList(with_flops=with_flops)
        self._recorder = None
        self._base_time_ns = 0

    def __enter__(self):
        self._start_trace()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._stop_trace()
        return False

    def _start_trace(self) -> None:
        if not (self.enabled and self.use_cpu):
            return
        self._recorder = _recorder.Recorder(self.record_shapes, self.with_flops)
        _recorder.start(self._recorder)

    def _stop_trace(self) -> None:
        if not self.enabled:
            return
        recorder, self._recorder = self._recorder, None
        if recorder is None:            # use_cpu=False: nothing was recorded
            return
        _recorder.stop()
        keep = self.function_events if self.acc_events else []
        events = build_events(recorder.ranges, recorder.start_ns, first_id=len(keep) + 1)
        self.function_events = EventList(list(keep) + events, with_flops=self.with_flops)
        self._base_time_ns = recorder.start_wall_ns

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        write_chrome_trace(self.function_events, path, self._base_time_ns)

    def __str__(self) -> str:
        return str(self.function_events)

    __repr__ = __str__


class emit_nvtx:
    """NVTX ranges are a CUDA tool: ember has none to emit, so this context does nothing."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False
