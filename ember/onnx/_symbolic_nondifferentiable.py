"""Symbolic functions of the ops written on Tensors that run as NonDifferentiable
Functions while a recorder is set (the `@recorded` ops of ember/ops/_nondifferentiable.py):
sampling, the *_like factories, tensor(), isclose, isin, unique, one_hot.

Those without an ONNX counterpart (poisson, randint_like, randperm, searchsorted,
unique_consecutive, histc, histogram) have no symbolic here, so the tracer refuses them by
name when their input is live. Registered when ember.onnx is imported (see _export.py).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..nn.functional import sparse
from ..ops import creation, pointwise, random, sorting, statistics
from ._symbolic import _dt, _unsupported, symbolic
from ._trace import onnx_type


# ---------------------------------------------------------------- factories of a live tensor
def _filled_like(g, out, x, fill) -> None:
    """x's shape, read at run time, filled with `fill` in out's dtype."""
    g.op("ConstantOfShape", [g.op("Shape", [g.name(x)])], out,
         value=np.array([0 if fill is None else fill], _dt(out)))


symbolic(creation.zeros_like.Function)(lambda g, out, x, **kw: _filled_like(g, out, x, 0))
symbolic(creation.ones_like.Function)(lambda g, out, x, **kw: _filled_like(g, out, x, 1))
symbolic(creation.empty_like.Function)(lambda g, out, x, **kw: _filled_like(g, out, x, None))
symbolic(creation.full_like.Function)(
    lambda g, out, x, fill_value, **kw: _filled_like(g, out, x, fill_value))


@symbolic(creation.tensor.Function, creation.scalar_tensor.Function)
def tensor_copy(g, out, data, **kw):
    """tensor(t) / scalar_tensor(t): a copy of t's values in out's dtype."""
    g.op("Identity", [g.name(data, _dt(out))], out)


# ---------------------------------------------------------------- sampling
def _random_like(onnx_op: str):
    def fn(g, out, x, **kw):
        if kw.get("generator") is not None:
            _unsupported("generator", kw["generator"])
        g.op(onnx_op, [g.name(x)], out, dtype=onnx_type(_dt(out)))
    return fn


symbolic(random.rand_like.Function)(_random_like("RandomUniformLike"))
symbolic(random.randn_like.Function)(_random_like("RandomNormalLike"))


@symbolic(random.bernoulli.Function)
def bernoulli(g, out, x, p=None, *, generator=None):
    if p is not None:
        _unsupported("p", p)
    if generator is not None:
        _unsupported("generator", generator)
    if g.opset < 15:
        raise NotImplementedError("ember.onnx.export: operator 'Bernoulli' needs "
                                  "opset_version >= 15")
    g.op("Bernoulli", [g.name(x)], out, dtype=onnx_type(_dt(out)))


@symbolic(random.normal.Function)
def normal(g, out, mean, std=1.0, size=None, *, generator=None, **kw):
    """mean + std * a standard normal sample of the result's shape."""
    if generator is not None:
        _unsupported("generator", generator)
    shaped = next((t for t in (mean, std) if isinstance(t, Tensor) and t.shape == out.shape),
                  None)
    if shaped is None:
        _unsupported("normal with mean and std broadcast to a new shape", True)
    noise = g.op("RandomNormalLike", [g.name(shaped)], dtype=onnx_type(_dt(out)))
    scaled = g.op("Mul", [noise, g.name(std, _dt(out))])
    g.op("Add", [scaled, g.name(mean, _dt(out))], out)


# ---------------------------------------------------------------- comparisons
@symbolic(pointwise.isclose.Function)
def isclose(g, out, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """a == b, or |a - b| <= atol + rtol |b| where that gap is finite (NaN never, unless
    equal_nan)."""
    dtype = _dt(a) if _dt(a).kind == "f" and _dt(a).itemsize >= 4 else np.float64
    x, y = g.name(a, dtype), g.name(b, dtype)
    gap = g.op("Abs", [g.op("Sub", [x, y])])
    bound = g.op("Add", [g.name(atol, dtype),
                         g.op("Mul", [g.name(rtol, dtype), g.op("Abs", [y])])])
    finite = g.op("Not", [g.op("Or", [g.op("IsInf", [gap]), g.op("IsNaN", [gap])])])
    close = g.op("Or", [g.op("Equal", [x, y]),
                        g.op("And", [finite, g.op("LessOrEqual", [gap, bound])])],
                 None if equal_nan else out)
    if equal_nan:
        both_nan = g.op("And", [g.op("IsNaN", [x]), g.op("IsNaN", [y])])
        g.op("Or", [close, both_nan], out)


@symbolic(statistics.isin.Function)
def isin(g, out, elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element equals one of the flattened test elements: Equal against all
    of them, then the largest match."""
    common = _dtype.result_type(elements, test_elements).numpy
    if np.size(test_elements.numpy(force=True) if isinstance(test_elements, Tensor) else
                test_elements) == 0:
        _unsupported("test_elements", "empty")
    column = g.op("Unsqueeze", [g.name(elements, common), g.ints([-1])])
    row = g.op("Reshape", [g.name(test_elements, common), g.ints([-1])])
    hits = g.op("Cast", [g.op("Equal", [column, row])], to=onnx_type(np.int32))
    found = g.reduce("ReduceMax", hits, [-1], False, None)
    if invert:
        g.op("Not", [g.op("Cast", [found], to=onnx_type(np.bool_))], out)
    else:
        g.op("Cast", [found], out, to=onnx_type(np.bool_))


# ---------------------------------------------------------------- unique
@symbolic(sorting.unique.Function)
def unique(g, out, x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """ONNX Unique (sorted, as ember's result always is); without `dim` it works on the
    flattened input, so the inverse indices are reshaped to the input's shape."""
    outs = list(out) if isinstance(out, tuple) else [out]
    values, inverse, counts = outs[0], None, None
    if return_inverse:
        inverse = outs[1]
    if return_counts:
        counts = outs[-1]
    axis = None if dim is None else x._wrap_dim(dim)
    names = g.op("Unique", [g.name(x)], 4, sorted=1, axis=axis)
    g.bind(values, names[0])
    if inverse is not None:
        shape = x.shape if dim is None else (-1,)
        g.op("Reshape", [names[2], g.ints(shape)], inverse)
    if counts is not None:
        g.bind(counts, names[3])


@symbolic(sparse.one_hot.Function)
def one_hot(g, out, x, num_classes=-1):
    """OneHot with values (0, 1); num_classes=-1 counts the classes at run time (the
    largest index plus one)."""
    if num_classes == -1:
        largest = g.reduce("ReduceMax", g.name(x), None, False, None)
        depth = g.op("Add", [largest, g.const(1, np.int64)])
    else:
        depth = g.const(num_classes, np.int64)
    g.op("OneHot", [g.name(x), depth, g.const([0, 1], np.int64)], out, axis=-1)
