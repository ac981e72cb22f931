"""Recording timed ranges while a profiler runs.

A `Recorder` collects `Range`s: one per ember op (`Function.apply`), per backward node
the engine evaluates, and per `record_function` block. Ranges nest per thread, like
torch's: a range opened while another is open on the same thread becomes its child.

When no profiler runs, ember pays a single `is not None` test per op (in
`Function.apply`); everything else here only runs while recording.
"""
from __future__ import annotations

import re
import threading
import time

from .._modes import own as own_modes
from ..autograd import engine, function
from ..autograd.graph import AccumulateGrad
from ._flops import count_flops

_BACKWARD_NAME = re.compile(r"^([A-Z][A-Za-z0-9]*?)Backward\d+$")
_WORD_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[0-9A-Z])(?=[A-Z][a-z])")

# ember primitives whose grad_fn name (torch's, for the result) names another op than
# the one the user called: torch's table shows the called op.
_CALLED_OP = {"ember.nn.functional.linear._LinearFn": "aten::linear"}

ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"
EVALUATE_FUNCTION = "autograd::engine::evaluate_function: "


def op_name(cls) -> str:
    """torch's profiler name for a Function class: 'MmBackward0' -> 'aten::mm'.

    User Functions keep their class name, as in torch; ember primitives whose grad_fn
    name does not map to an aten op simply are 'ember::<class name>'.
    """
    short_name = cls.__qualname__.rsplit(".", 1)[-1]
    if not cls._is_primitive:
        return short_name
    called = _CALLED_OP.get(f"{cls.__module__}.{cls.__qualname__}")
    if called is not None:
        return called
    match = _BACKWARD_NAME.match(cls.backward_name or "")
    if match is None:
        return f"ember::{short_name}"
    return "aten::" + _WORD_BOUNDARY.sub("_", match.group(1)).lower()


def input_shapes(args) -> list:
    """One entry per argument: a Tensor's shape as a list, [] for anything else."""
    return [list(a.shape) if isinstance(a, function.Tensor) else [] for a in args]


class Range:
    """One timed, named interval; `parent`/`children` give the nesting on its thread."""

    __slots__ = ("name", "start_ns", "end_ns", "thread", "shapes", "parent", "children",
                 "is_user_annotation", "flops")

    def __init__(self, name: str, thread: int, shapes: list, parent, is_user_annotation: bool):
        self.name = name
        self.thread = thread
        self.shapes = shapes
        self.parent = parent
        self.children = []
        self.is_user_annotation = is_user_annotation
        self.flops = 0
        self.end_ns = None
        self.start_ns = time.perf_counter_ns()


class Recorder:
    """The ranges of one recording session (from `start()` to `stop()`)."""

    def __init__(self, record_shapes: bool, with_flops: bool = False):
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.ranges = []            # every range, in the order they were opened
        self.start_ns = time.perf_counter_ns()
        self.start_wall_ns = time.time_ns()
        self._threads = threading.local()   # .stack: the open ranges; .claimed: see wants()

    def _stack(self) -> list:
        stack = getattr(self._threads, "stack", None)
        if stack is None:
            stack = self._threads.stack = []
        return stack

    def open(self, name: str, args=(), is_user_annotation: bool = False) -> Range:
        stack = self._stack()
        parent = stack[-1] if stack else None
        shapes = input_shapes(args) if self.record_shapes else []
        rng = Range(name, threading.get_native_id(), shapes, parent, is_user_annotation)
        if parent is not None:
            parent.children.append(rng)
        stack.append(rng)
        self.ranges.append(rng)
        return rng

    def close(self, rng: Range) -> None:
        rng.end_ns = time.perf_counter_ns()
        stack = self._stack()
        if rng in stack:        # ranges closed out of order close their open children too
            del stack[stack.index(rng):]

    # -- hooks called by Function.apply ---------------------------------------------------
    def wants(self) -> bool:
        """Whether Function.apply should hand this call to `record_op`: every call except
        the one `record_op` itself makes to run the op."""
        if getattr(self._threads, "claimed", False):
            self._threads.claimed = False
            return False
        return True

    def record_op(self, cls, args, kwargs):
        """Run the op inside a range named after it."""
        rng = self.open(op_name(cls), args)
        try:
            self._threads.claimed = True
            result = cls.apply(*args, **kwargs)
        finally:
            self.close(rng)
        if self.with_flops:
            rng.flops = count_flops(rng.name, cls, args, result)
        return result

    def record_inplace(self, tensor, result) -> None:
        """In-place writes need no range of their own: the op that computed them has one."""


_active = [None]    # the running Recorder, if any
_engine_call_node = engine._call_node
_accumulate_grad = AccumulateGrad.accumulate


def active() -> Recorder | None:
    return _active[0]


def _profiled_call_node(node, grads):
    """The engine's `_call_node` while recording: torch's two ranges around each node."""
    recorder = _active[0]
    name = node.name()
    outer = recorder.open(EVALUATE_FUNCTION + name)
    inner = recorder.open(name, grads)
    try:
        return _engine_call_node(node, grads)
    finally:
        recorder.close(inner)
        recorder.close(outer)


def _profiled_accumulate(node, grad, create_graph: bool) -> None:
    recorder = _active[0]
    outer = recorder.open(EVALUATE_FUNCTION + ACCUMULATE_GRAD)
    inner = recorder.open(ACCUMULATE_GRAD, (grad,))
    try:
        _accumulate_grad(node, grad, create_graph)
    finally:
        recorder.close(inner)
        recorder.close(outer)


def start(recorder: Recorder) -> None:
    """Make `recorder` receive ranges: forward ops, backward nodes, record_function."""
    if _active[0] is not None:
        raise NotImplementedError("ember's profiler does not support running two profilers at "
                                  "once: stop the first one before starting another.")
    _active[0] = recorder
    own_modes().recorder = recorder        # this thread's ops, as torch records them
    # The engine has no profiling hook of its own: its node runner is swapped for the
    # duration of the recording, so backward passes cost nothing extra otherwise.
    engine._call_node = _profiled_call_node
    AccumulateGrad.accumulate = _profiled_accumulate


def stop() -> None:
    own_modes().recorder = None
    engine._call_node = _engine_call_node
    AccumulateGrad.accumulate = _accumulate_grad
    _active[0] = None
