"""Ops without a gradient, made visible to recorders.

Comparisons, logical and bitwise ops, isnan and its kin, argmax, nonzero, detach ... have
no gradient, so they compute their array directly, without the cost of Function.apply.
Recorders (the profiler, the ONNX exporter) see ops only through apply, though: while one
is set, these ops run through a `NonDifferentiable` Function of their own, so that the
exporter records them (or refuses them by name) instead of freezing their result into a
constant.

    IsNan = nondifferentiable("isnan", lambda x: np.isnan(x._data))
    result = run(IsNan, input)       # direct, or through IsNan.apply under a recorder
"""
from __future__ import annotations

import numpy as np

from .._modes import current as modes
from .._tensor import Tensor
from ..autograd.function import Function


class NonDifferentiable(Function):
    """A Function whose `compute(*args, **kwargs)` returns its result array (or a tuple of
    arrays), computed from the op's arguments as given (Tensors included)."""

    @staticmethod
    def compute(*args, **kwargs):
        raise NotImplementedError

    @staticmethod
    def forward(ctx, *args, **kwargs):
        out = type(ctx).compute(*args, **kwargs)
        outs = tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else \
            (np.asarray(out),)
        ctx.mark_non_differentiable(*outs)
        return outs if isinstance(out, tuple) else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None,) * len(ctx.needs_input_grad)


def nondifferentiable(op_name: str, compute) -> type:
    """The NonDifferentiable Function of op `op_name` ('logical_not' gives class
    LogicalNot), computing with `compute`."""
    name = "".join(part.capitalize() for part in op_name.split("_"))
    return type(name, (NonDifferentiable,), {
        "compute": staticmethod(compute), "backward_name": name,
        "__module__": __name__, "__qualname__": name})


def run(cls: type, *args, **kwargs):
    """cls's result: through cls.apply when a recorder is set, else computed directly."""
    if modes().recorder is not None:
        return cls.apply(*args, **kwargs)
    out = cls.compute(*args, **kwargs)
    if isinstance(out, tuple):
        return tuple(Tensor._wrap(np.asarray(o)) for o in out)
    return Tensor._wrap(np.asarray(out))
