"""SparseFunction: the autograd Function of ops whose inputs or outputs are sparse.

A sparse COO tensor takes part in autograd as a whole, as in torch: it can be a leaf
that requires grad (its .grad is then sparse or dense, whichever its consumers give), or
the output of a node (grad_fn=<MulBackward0> ...). Function.apply hands primitives the
NumPy arrays of their inputs and wraps array results; a sparse tensor has neither, so
these Functions get the Tensors themselves (forward_on_tensors) and may return a sparse
tensor, which apply makes the node's output. Dense ops never pass through here.
"""
from __future__ import annotations

import numpy as np

from .._modes import current as current_modes
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad


class SparseFunction(Function):
    """Base class: forward(ctx, *args) receives Tensors (sparse or dense) and returns a
    Tensor (sparse or dense) or an array; backward is written in ember ops as usual."""

    forward_on_tensors = True

    @classmethod
    def apply(cls, *args):
        modes = current_modes()
        if modes.recorder is not None and modes.recorder.wants():
            return modes.recorder.record_op(cls, args, {})     # the exporter, the profiler
        ctx = object.__new__(cls)
        wants = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = modes.grad_enabled and any(wants)
        ctx.needs_input_grad = wants if record else (False,) * len(args)
        with no_grad():
            out = cls.forward(ctx, *args)
        if not isinstance(out, Tensor):
            out = Tensor._wrap(np.asarray(out))
        if record and (out.dtype.is_floating_point or out.dtype.is_complex):
            ctx._edges = [_edge(a) if want else None for a, want in zip(args, wants)]
            ctx._input_meta = [(a._data.shape, a._data.dtype) if want else
                               None if isinstance(a, Tensor) else False
                               for a, want in zip(args, wants)]
            out._requires_grad = True
            out._grad_fn = ctx
            out._output_nr = 0
        return out


def _edge(t: Tensor):
    """Where t's gradient goes: its grad_fn, or its AccumulateGrad node if t is a leaf."""
    return (t._grad_fn, t._output_nr) if t._grad_fn is not None else t._edge()
