"""In-place ops: the out-of-place result written into the tensor, and the graph rewritten
as torch's autograd rewrites it. Bound onto Tensor as `_inplace`, which every `op_`
method and `out=` path calls.

- On a tensor that is not a view, the op's node simply becomes the tensor's grad_fn
  (computed from a snapshot of the old value, since the memory is overwritten).
- On a view, torch records CopySlices: the base's history becomes "the old base with
  the view's elements replaced by the op's result", so gradient reaches both the
  modified region and the rest of the base, and the view's own history is re-derived
  from the new base (AsStridedBackward0).
"""
from __future__ import annotations

import re

import numpy as np

from .._modes import current as modes
from .._tensor import Tensor, bind_methods
from .indexing import CopySlices, Index


def inplace(self, compute, *args) -> Tensor:
    """Run the out-of-place `compute(self, *args)` and write its result into self."""
    self._check_inplace()
    recording = modes().grad_enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if recording and self._base is not None:
        return inplace_on_view(self, compute, args)
    if recording:
        snapshot = Tensor._wrap(self._data.copy(), self._requires_grad, self._grad_fn,
                                self._output_nr)
        snapshot._accumulator = self._accumulator
        recorder = modes().recorder
        if recorder is not None:    # the snapshot holds self's value (forward AD's tangent too)
            record = getattr(recorder, "record_snapshot", None)   # compile's tracer copies
            if record is not None:
                record(snapshot, self)
            else:
                recorder.record_inplace(snapshot, self)
        out = compute(snapshot, *args)
    else:
        out = compute(self, *args)
    self._assign_result(out)
    recorder = modes().recorder
    if recorder is not None:        # the exporter follows self to its new value
        recorder.record_inplace(self, out)
    if recording:
        self._grad_fn = out._grad_fn
        self._output_nr = out._output_nr
        self._requires_grad = out._requires_grad
    return self


def inplace_on_view(self, compute, args) -> Tensor:
    """An in-place op on a view, recorded as torch's CopySlices (see the module's doc)."""
    node = self._grad_fn
    if node is not None and type(node).is_view and len(node._output_meta) > 1:
        raise RuntimeError(
            f"Output {self._output_nr} of {re.sub(r'Backward[0-9]*$', '', node.name())} is "
            "a view and is being modified inplace. This view is the output of a function "
            "that returns multiple views. Such functions do not allow the output views to "
            "be modified inplace. You should replace the inplace operation by an "
            "out-of-place one.")
    base = self._base
    key = np.unravel_index(_view_positions(self), base._data.shape)
    out = compute(Index.apply(base, key), *args)
    self._assign_result(out)
    recorder = modes().recorder
    if recorder is not None:
        recorder.record_inplace(self, out)
    new_base = CopySlices.apply(base, key, out)
    base._grad_fn, base._output_nr = new_base._grad_fn, 0
    base._requires_grad = new_base._requires_grad
    view = Index.apply(base, key)
    if view._grad_fn is not None:
        view._grad_fn.backward_name = "AsStridedBackward0"
    self._grad_fn, self._output_nr = view._grad_fn, 0
    self._requires_grad = view._requires_grad
    return self


def _view_positions(view: Tensor) -> np.ndarray:
    """For each element of `view`, its flat (C-order) position in its base: number
    the base's elements in a scratch buffer laid out like the base's memory, then read
    that buffer through the view's strides."""
    base = view._base._data
    item = base.itemsize
    low, high = np.lib.array_utils.byte_bounds(base)
    labels = np.zeros((high - low) // item, dtype=np.int64)

    def laid_out_like(a: np.ndarray) -> np.ndarray:
        start = (a.__array_interface__["data"][0] - low) // item
        return np.lib.stride_tricks.as_strided(
            labels[start:], a.shape, tuple(s // item * labels.itemsize for s in a.strides))
    laid_out_like(base)[...] = np.arange(base.size).reshape(base.shape)
    return laid_out_like(view._data).copy()


bind_methods(_inplace=inplace)
