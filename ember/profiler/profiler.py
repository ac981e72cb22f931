"""torch.profiler.profile: the autograd profiler driven by a step schedule.

    with profile(schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=tensorboard_trace_handler("./log")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

Each `step()` asks the schedule what the next step is (NONE, WARMUP, RECORD,
RECORD_AND_SAVE) and starts or stops recording accordingly; a finished RECORD_AND_SAVE
step hands the profiler to `on_trace_ready`.
"""
from __future__ import annotations

import os
import socket
import time
import warnings
from enum import Enum
from typing import Callable

from ..autograd import profiler as autograd_profiler


class ProfilerActivity(Enum):
    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerAction(Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """ember runs on the CPU only."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """Step -> action: skip `skip_first` steps, then cycles of `wait` idle, `warmup` and
    `active` recorded steps (the last one saves); `repeat` cycles, 0 for no limit."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def action_at(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:     # the first cycle starts without its wait
            step += wait
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action_at


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An on_trace_ready callback writing '<worker>.<time_ns>.pt.trace.json' into dir_name
    (the layout TensorBoard's profiler plugin reads)."""
    if use_gzip:
        raise NotImplementedError("tensorboard_trace_handler: use_gzip is not supported by ember")

    def write_trace(prof) -> None:
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker}.{time.time_ns()}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return write_trace


_NONE, _WARMUP = ProfilerAction.NONE, ProfilerAction.WARMUP
_RECORD, _SAVE = ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
_NEW_CYCLE = ("_stop_trace", "_trace_ready", "_prepare_trace", "_start_trace")

# What happens between two steps, by (previous action, next action); None: the profiler
# stops. Warmup records nothing in ember (there is no device tracer to warm up); a cycle
# ending in warmup is recorded empty, as in torch. Pairs not listed do nothing.
_TRANSITIONS = {
    (_NONE, _WARMUP): ("_prepare_trace",),
    (_NONE, _RECORD): ("_prepare_trace", "_start_trace"),
    (_NONE, _SAVE): ("_prepare_trace", "_start_trace"),
    (_WARMUP, _NONE): ("warn:WARMUP followed by NONE", "_start_trace", "_stop_trace"),
    (_WARMUP, _RECORD): ("_start_trace",),
    (_WARMUP, _SAVE): ("_start_trace",),
    (_RECORD, _NONE): ("warn:RECORD followed by NONE", "_stop_trace"),
    (_RECORD, _WARMUP): ("warn:RECORD followed by WARMUP", "_stop_trace"),
    (_SAVE, _NONE): ("_stop_trace", "_trace_ready"),
    (_SAVE, _WARMUP): ("_stop_trace", "_trace_ready", "_prepare_trace"),
    (_SAVE, _RECORD): _NEW_CYCLE,
    (_SAVE, _SAVE): _NEW_CYCLE,
    (_WARMUP, None): ("_start_trace", "_stop_trace"),
    (_RECORD, None): ("_stop_trace", "_trace_ready"),
    (_SAVE, None): ("_stop_trace", "_trace_ready"),
}


class profile:
    """Profile the ember ops of a block or of scheduled training steps (see module docs)."""

    def __init__(self, *, activities=None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        autograd_profiler.check_supported(False, profile_memory, with_stack, with_modules,
                                          experimental_config)
        if execution_trace_observer is not None:
            raise NotImplementedError("profiler: execution_trace_observer is not supported by "
                                      "ember")
        self.activities = set(activities) if activities else supported_activities()
        if use_cuda or ProfilerActivity.CUDA in self.activities:
            warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.acc_events = acc_events
        self.record_steps = schedule is not None    # steps show as 'ProfilerStep#<n>' ranges
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None
        self.step_rec_fn = None

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()
        return False

    def start(self) -> None:
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step_range()

    def stop(self) -> None:
        self._exit_step_range()
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Mark the start of the next step: record or not as the schedule says."""
        self._exit_step_range()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(previous, self.current_action)
        self._enter_step_range()

    def _enter_step_range(self) -> None:
        if self.record_steps:
            self.step_rec_fn = autograd_profiler.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _exit_step_range(self) -> None:
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    # -- the state machine -------------------------------------------------------------------
    def _transit_action(self, previous: ProfilerAction, current: ProfilerAction | None) -> None:
        """Run the steps for the schedule moving from `previous` to `current` (None: stop)."""
        for step in _TRANSITIONS.get((previous, current), ()):
            if step.startswith("warn:"):
                warnings.warn("Incorrect schedule: " + step[len("warn:"):], stacklevel=3)
            else:
                getattr(self, step)()

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _prepare_trace(self) -> None:
        if self.profiler is None or not self.acc_events:
            self.profiler = autograd_profiler.profile(
                use_cpu=ProfilerActivity.CPU in self.activities,
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                acc_events=self.acc_events)

    def _start_trace(self) -> None:
        self.profiler._start_trace()

    def _stop_trace(self) -> None:
        self.profiler._stop_trace()

    # -- results -----------------------------------------------------------------------------
    def _finished(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting results")
        return self.profiler

    def events(self):
        """The recorded FunctionEvents of the last saved cycle."""
        return self._finished().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        return self._finished().key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        if path.endswith(".gz"):
            raise NotImplementedError("export_chrome_trace: gzip output is not supported by "
                                      "ember")
        self._finished().export_chrome_trace(path)
