"""Symbolic functions of composite ops recorded whole (see ember/_recorded_call.py): where
torch's exporter writes one node, so does ember's, instead of the primitives the op runs.

Each symbolic has `accepts(*args, **kwargs)`: whether this call maps to that node (an
eval-mode batch_norm, an adaptive average pool whose sizes divide, a flatten to 2-D);
calls it does not accept are traced primitive by primitive. Registered when ember.onnx is
imported (see _export.py).
"""
from __future__ import annotations

import numpy as np

from ..nn.functional import normalization, pooling
from ..ops import shape
from ._symbolic import _dt, symbolic


def whole(fn, accepts):
    """Register the decorated symbolic for calls of `fn` that `accepts`."""
    def register(symbolic_fn):
        symbolic_fn.accepts = accepts
        return symbolic(fn)(symbolic_fn)
    return register


@whole(normalization.batch_norm, lambda input, running_mean, running_var, weight=None,
       bias=None, training=False, *rest, **kw: not training and input.ndim >= 2 and
       running_mean is not None and running_var is not None)
def batch_norm(g, out, input, running_mean, running_var, weight=None, bias=None,
               training=False, momentum=0.1, eps=1e-5):
    """Eval-mode batch norm: BatchNormalization with the running statistics."""
    channels = (input.shape[1],)
    scale = g.name(weight) if weight is not None else g.const(np.ones(channels, _dt(out)))
    shift = g.name(bias) if bias is not None else g.const(np.zeros(channels, _dt(out)))
    g.op("BatchNormalization", [g.name(input), scale, shift, g.name(running_mean),
                                g.name(running_var)], out, epsilon=float(eps),
         momentum=float(1 - momentum))


def _divisible_pool(n, input, output_size) -> bool:
    return input.ndim == n + 2 and all(s % o == 0 for s, o in zip(
        input.shape[2:], pooling._output_size(output_size, tuple(input.shape[2:]), n)))


@whole(pooling._adaptive_avg_poolnd, _divisible_pool)
def adaptive_avg_pool(g, out, n, input, output_size):
    """GlobalAveragePool to size 1, else AveragePool over windows of size in / out."""
    sizes = tuple(out.shape[2:])
    if all(o == 1 for o in sizes):
        g.op("GlobalAveragePool", [g.name(input)], out)
        return
    kernel = [s // o for s, o in zip(input.shape[2:], sizes)]
    g.op("AveragePool", [g.name(input)], out, kernel_shape=kernel, strides=kernel)


def _to_matrix(input, start_dim=0, end_dim=-1) -> bool:
    return input.ndim >= 2 and start_dim == 1 and end_dim in (-1, input.ndim - 1)


@whole(shape.flatten, _to_matrix)
def flatten(g, out, input, start_dim=0, end_dim=-1):
    g.op("Flatten", [g.name(input)], out, axis=1)
