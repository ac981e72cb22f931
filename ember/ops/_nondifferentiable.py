"""Ops without a gradient, made visible to recorders.

Comparisons, logical and bitwise ops, isnan and its kin, argmax, nonzero, detach ... have
no gradient, so they compute their array directly, without the cost of Function.apply.
Recorders (the profiler, the ONNX exporter) see ops only through apply, though: while one
is set, these ops run through a `NonDifferentiable` Function of their own, so that the
exporter records them (or refuses them by name) instead of freezing their result into a
constant.

    IsNan = nondifferentiable("isnan", lambda x: np.isnan(x._data))
    result = run(IsNan, input)       # direct, or through IsNan.apply under a recorder

Ops written on Tensors (unique, histc, the *_like factories ...) get the same treatment
from the `@recorded("unique")` decorator: with a Tensor argument under a recorder, they run
as the Function `recorded_op.Function`.
"""
from __future__ import annotations

import functools

import numpy as np

from .._meta import as_storage
from .._modes import current as modes
from .._tensor import Tensor, _python_value
from ..autograd.function import Function


class NonDifferentiable(Function):
    """A Function whose `compute(*args, **kwargs)` returns its result array (or a tuple of
    arrays), computed from the op's arguments as given (Tensors included)."""

    forward_on_tensors = True   # compute is the public op's own code, on its arguments

    @staticmethod
    def compute(*args, **kwargs):
        raise NotImplementedError

    @staticmethod
    def forward(ctx, *args, **kwargs):
        out = type(ctx).compute(*args, **kwargs)
        outs = tuple(as_storage(o) for o in out) if isinstance(out, tuple) else \
            (as_storage(out),)
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
        return tuple(Tensor._wrap(as_storage(o)) for o in out)
    return Tensor._wrap(as_storage(out))


def _arrays(result):
    """An op's Tensor result (or tuple of them) as arrays."""
    if isinstance(result, tuple):
        return tuple(_arrays(r) for r in result)
    return result._data if isinstance(result, Tensor) else np.asarray(result)


def recorded(op_name: str, result_type=None, factory: bool = False, value_sized: bool = False):
    """Decorator of an op that computes its Tensor result(s) directly: when a recorder is
    set and a positional argument is a Tensor, the op runs as a NonDifferentiable Function
    named after it (kept as `op.Function`), so that the exporter records it or refuses it
    by name. Factories (`factory=True`: zeros, randn ...) are left to the exporter as
    before (their result is a constant of the exported graph). A recorder with
    `records_factories` (compile's tracer) gets every call, with tensors or not (a plan
    must replay `randperm(n)` or `normal(0.0, 1.0, size)`). `out=` and `requires_grad=`
    are honoured; a tuple result is made a `result_type` (a named tuple) if given.
    `value_sized`: the result's size depends on the values (unique, bincount), which the
    recorder is told first (compile's tracer breaks the graph there)."""
    def decorate(fn):
        cls = nondifferentiable(op_name, lambda *a, **k: _arrays(fn(*a, **k)))

        @functools.wraps(fn)
        def op(*args, **kwargs):
            if value_sized:
                _python_value(op_name, "size", *[a for a in args if isinstance(a, Tensor)])
            recorder = modes().recorder
            if recorder is None or not (
                    getattr(recorder, "records_factories", False) or
                    not factory and any(isinstance(a, Tensor) for a in args)):
                return fn(*args, **kwargs)
            out = kwargs.pop("out", None)
            result = cls.apply(*args, **kwargs)
            if result_type is not None:
                result = result_type(*result)
            if kwargs.get("requires_grad"):
                result.requires_grad_(True)
            if out is not None:
                out.resize_(result.shape).copy_(result)
                return out
            return result
        op.Function = cls
        return op
    return decorate
