"""Dual levels: where forward-mode AD keeps tangents, and the recorder that propagates them.

A level is a per-thread `DualLevel`. Entering one installs it as the thread's recorder
(ember/_modes.py), so `Function.apply` hands it every op while it is open; ember pays nothing
for forward AD outside a level. For each op the level runs the op through the recorder that
was installed before it (the profiler's, or the next outer level's), then, when some argument
has a tangent at this level, computes the outputs' tangents (native rule, view rule, user
`jvp` or the generic rule, see generic.py) with that same outer recorder installed: the
tangent computations are ordinary ops, so an outer level differentiates them too (nested
jvp) and reverse mode records them (a tangent is differentiable).

Tangents are kept per level in a table keyed by the dual tensor's identity; an entry goes
when its tensor is collected, and the whole table when the level exits.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from ..._modes import own as own_modes
from ..._tensor import Tensor
from ..graph import SavedTensor


class _Levels(threading.local):
    """This thread's open levels, outermost first."""

    def __init__(self):
        self.stack = []


_LEVELS = _Levels()


def open_levels() -> list:
    """This thread's open DualLevels, outermost first."""
    return _LEVELS.stack


class DualLevel:
    """One forward-AD level of this thread and the recorder that propagates its tangents."""

    def __init__(self, number: int, inner):
        self.number = number
        self.inner = inner          # the recorder installed before this level, or None
        self._tangents = {}         # id(tensor) -> (weak reference to it, its tangent)

    # ---------------------------------------------------------------- the tangent table
    def tangent(self, tensor: Tensor) -> Tensor | None:
        """`tensor`'s tangent at this level, or None."""
        entry = self._tangents.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            return entry[1]
        return None

    def set_tangent(self, tensor: Tensor, tangent: Tensor) -> None:
        table = self._tangents
        key = id(tensor)

        def forget(ref):
            entry = table.get(key)
            if entry is not None and entry[0] is ref:
                del table[key]
        table[key] = (weakref.ref(tensor, forget), tangent)

    def clear(self) -> None:
        self._tangents.clear()

    # ---------------------------------------------------------------- recorder hooks
    def wants(self) -> bool:
        """Every op: the level is only installed at the top, never while it computes."""
        return True

    def record_op(self, cls, args, kwargs):
        """Run the op, then give its outputs their tangents at this level."""
        from .generic import propagate     # generic.py builds on this module
        modes = own_modes()
        modes.recorder = self.inner
        try:
            tangents = None
            for i, a in enumerate(args):
                if type(a) is Tensor or isinstance(a, Tensor):
                    t = self.tangent(a)
                    if t is not None:
                        if tangents is None:
                            tangents = [None] * len(args)
                        tangents[i] = t
            if tangents is None:
                return cls.apply(*args, **kwargs)
            out, out_tangents = propagate(cls, args, kwargs, tangents)
            self._attach(out, out_tangents)
            return out
        finally:
            modes.recorder = self

    def _attach(self, out, tangents) -> None:
        outs = out if isinstance(out, tuple) else (out,)
        tangents = tangents if isinstance(tangents, (tuple, list)) else (tangents,)
        for o, t in zip(outs, tangents):
            if t is None or not isinstance(o, Tensor) or o._data.dtype.kind not in "fc":
                continue
            if t.shape != o.shape:      # a rule may give a broadcastable tangent
                t = t.expand(o.shape).clone()
            self.set_tangent(o, t)
            _save_output_itself(o)

    def record_inplace(self, tensor: Tensor, result: Tensor) -> None:
        """`tensor` now holds `result`'s values: its tangent takes result's (zeros if result
        has none), written in place so that views of the tensor see it; a view that had no
        tangent gets a zero tangent on its base first, and the view of it."""
        if self.inner is not None:
            self.inner.record_inplace(tensor, result)
        if tensor is result:
            return
        new = self.tangent(result)
        old = self.tangent(tensor)
        if new is None and old is None:
            return
        modes = own_modes()
        modes.recorder = self.inner
        try:
            if old is None:
                if tensor._base is None:
                    self.set_tangent(tensor, new)
                    return
                old = self._view_tangent(tensor)
            if new is None:
                old.zero_()
            else:
                old.copy_(new)
        finally:
            modes.recorder = self

    def _view_tangent(self, view: Tensor) -> Tensor:
        """A tangent for `view` that is the same view of its base's tangent (a zero tangent
        is given to the base when it has none)."""
        base = view._base
        base_tangent = self.tangent(base)
        if base_tangent is None or base_tangent._data.strides != base._data.strides:
            base_tangent = Tensor._wrap(np.zeros_like(base._data))
            self.set_tangent(base, base_tangent)
        item = base._data.itemsize
        offset = (view._data.__array_interface__["data"][0] -
                  base._data.__array_interface__["data"][0]) // item
        tangent = base_tangent.as_strided(view.shape, view.stride(), offset)
        self.set_tangent(view, tangent)
        return tangent

    def record_call(self, fn, args, kwargs):
        """A composite op's call: the outer recorder's to handle, else run as it is."""
        record = getattr(self.inner, "record_call", None)
        if record is None:
            return fn.__wrapped__(*args, **kwargs)
        return record(fn, args, kwargs)

    def record_python_value(self, op: str, kind: str, tensors: tuple) -> None:
        record = getattr(self.inner, "record_python_value", None)
        if record is not None:
            record(op, kind, tensors)


def _save_output_itself(output: Tensor) -> None:
    """A node that saves its own output rebuilds it from the array on unpack (see
    SavedTensor), a Tensor without tangents; for a dual output it keeps the Tensor itself,
    so that backward through it (forward over reverse) sees its tangents. That makes a
    reference cycle output -> node -> output, which the collector clears."""
    node = output._grad_fn
    saved = node.__dict__.get("_outputs_saved") if node is not None else None
    if not saved:
        return
    nr = output._output_nr
    entry = saved[nr] if nr < len(saved) else None
    if entry is not None and entry.tensor is None and entry.data is output._data:
        node._outputs_saved = saved[:nr] + (SavedTensor(output),) + saved[nr + 1:]


def carry_tangents(source: Tensor, target: Tensor, map_tangent=None) -> Tensor:
    """Give `target`, which stands for `source`'s value (a detached copy, say), source's
    tangent at every open level (passed through `map_tangent` when given); returns target."""
    for level in _LEVELS.stack:
        tangent = level.tangent(source)
        if tangent is not None:
            level.set_tangent(target, tangent if map_tangent is None else map_tangent(tangent))
    return target


def open_level() -> DualLevel:
    """Open a new level on this thread (inside any open one) and install its recorder."""
    stack = _LEVELS.stack
    modes = own_modes()
    level = DualLevel(len(stack), modes.recorder)
    stack.append(level)
    modes.recorder = level
    return level


def close_level(level: DualLevel) -> None:
    """Close `level`, the innermost open one: its tangents are dropped."""
    stack = _LEVELS.stack
    if not stack or stack[-1] is not level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    stack.pop()
    level.clear()
    own_modes().recorder = level.inner
