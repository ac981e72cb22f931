"""The names of torch._dynamo's decorators module that scripts use around compile: shape
markers, graph_break and the compiler's stance.

`mark_dynamic(t, i)` lets dimension i of t vary between calls of a compiled function
without a plan per size (see _dynamic.py), as `dynamic=True` does for every dimension;
`mark_static` keeps a dimension fixed even then. ember keeps the marks in a table by
tensor (its Tensors have no attribute dict), read when a compiled function is called.
"""
from __future__ import annotations

import functools
import weakref

from .._modes import current as current_modes
from ._tracer import Tracer

__all__ = ["mark_dynamic", "maybe_mark_dynamic", "mark_static", "mark_static_address",
           "graph_break", "set_stance"]

STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
           "eager_then_compile", "aot_eager_then_compile")


# id(tensor) -> (a weak reference to it, {"dynamic": dims, "static": dims})
_MARKS: dict = {}


def _marks(t) -> dict:
    entry = _MARKS.get(id(t))
    if entry is None or entry[0]() is not t:
        entry = (weakref.ref(t, lambda _, key=id(t): _MARKS.pop(key, None)),
                 {"dynamic": set(), "static": set()})
        _MARKS[id(t)] = entry
    return entry[1]


def _dims(t, index) -> set:
    if index is None:
        return set(range(t.dim()))
    return {index} if isinstance(index, int) else set(index)


def marked(t, kind: str) -> set:
    """The dims of t marked "dynamic" or "static" (negative ones counted from the end;
    torch does not check them when marking, nor does ember)."""
    entry = _MARKS.get(id(t))
    if entry is None or entry[0]() is not t:
        return set()
    n = t.dim()
    return {i % n for i in entry[1][kind] if -n <= i < n}


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None,
                 specialize_on=None) -> None:
    """Let dimension(s) `index` of `t` take other sizes in later calls without a plan per
    size (the module docstring). `min`, `max` and the hints are accepted and unused."""
    _marks(t)["dynamic"].update(_dims(t, index))


def maybe_mark_dynamic(t, index) -> None:
    """Like mark_dynamic (in torch, a hint that does not fail when the dim is fixed)."""
    mark_dynamic(t, index)


def mark_static(t, index=None) -> None:
    """Keep dimension(s) of `t` (all when index is None) fixed, even with dynamic=True."""
    _marks(t)["static"].update(_dims(t, index))


def mark_static_address(t, guard: bool = False) -> None:
    """Promise that `t` keeps its memory between calls (for CUDA graphs in torch):
    nothing to do for ember's plans, which read the tensor's current array each call."""


def graph_break(msg: str = "") -> None:
    """End the traced graph here. Inside a compiled call, the call's signature runs
    eagerly from then on (ember has no partial graphs: see docs/compile.md); outside one,
    nothing happens."""
    recorder = current_modes().recorder
    if isinstance(recorder, Tracer):
        recorder.graph_break("torch._dynamo.graph_break()" + (f": {msg}" if msg else ""))


class set_stance:
    """Set how compiled functions behave from now on, process-wide as in torch (also a
    context manager and a decorator that restore the previous stance):
    "default"; "force_eager" (every compiled function runs eagerly); "eager_on_recompile"
    (a call that would trace a new signature runs eagerly; existing plans still replay);
    "fail_on_recompile" (such a call raises); "eager_then_compile" and
    "aot_eager_then_compile" (a function's first call runs eagerly, later ones compile).
    An unknown stance raises at the next compiled call, as in torch."""

    current = "default"

    def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                 force_backend=None) -> None:
        if skip_guard_eval_unsafe:
            raise NotImplementedError("set_stance(skip_guard_eval_unsafe=True): ember "
                                      "always evaluates every guard")
        if force_backend is not None:
            raise NotImplementedError("set_stance(force_backend=...) is not supported")
        self._previous = set_stance.current
        self._stance = stance
        set_stance.current = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        set_stance.current = self._previous

    def __call__(self, fn):
        @functools.wraps(fn)
        def with_stance(*args, **kwargs):
            previous, set_stance.current = set_stance.current, self._stance
            try:
                return fn(*args, **kwargs)
            finally:
                set_stance.current = previous
        set_stance.current = self._previous      # as a decorator it applies per call only
        return with_stance
