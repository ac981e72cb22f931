"""The names of torch._dynamo's decorators module that scripts use around compile: shape
markers, graph_break and the compiler's stance.

ember traces every call with the exact shapes it sees, so the dynamic-shape markers
change nothing: a marked dimension that takes a new size traces again, like any new
shape, up to `config.recompile_limit`. The values computed are the same either way.
"""
from __future__ import annotations

import functools

from .._modes import current as current_modes
from ._tracer import Tracer

__all__ = ["mark_dynamic", "maybe_mark_dynamic", "mark_static", "mark_static_address",
           "graph_break", "set_stance"]

STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
           "eager_then_compile", "aot_eager_then_compile")


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None,
                 specialize_on=None) -> None:
    """Mark dimension(s) `index` of `t` as varying between calls. Ignored (module
    docstring): each size traces its own plan."""


def maybe_mark_dynamic(t, index) -> None:
    """Like mark_dynamic, as a hint (ignored)."""


def mark_static(t, index=None) -> None:
    """Mark dimension(s) of `t` (all when index is None) as fixed: what ember's guards do
    for every dimension already."""


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
