"""Reductions: sum, mean, and the helpers every reduction shares (dim handling,
re-expanding a reduced gradient)."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Function

METHODS = ["sum", "mean", "sum_to_size"]

__all__ = ["sum", "mean", "sum_to_size"]


def reduce_dims(input: Tensor, dim) -> tuple | None:
    """Normalise `dim` (None, int, or a sequence) to a sorted tuple of axes, or None for all."""
    if dim is None:
        return None
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) == 0:
        return None
    axes = tuple(sorted({input._wrap_dim(d) for d in dims}))
    if len(axes) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return axes


def expand_reduced(grad: Tensor, in_shape: tuple, axes, keepdim: bool) -> Tensor:
    """Broadcast the gradient of a reduction back over the reduced axes."""
    if not keepdim and in_shape:
        axes = range(len(in_shape)) if axes is None else axes
        shape = list(grad.shape)
        for a in sorted(axes):
            shape.insert(a, 1)
        grad = grad.reshape(shape)
    return grad.expand(in_shape)


def _accumulate_dtype(input: Tensor, dtype) -> np.dtype | None:
    """sum/prod of bool and integer tensors accumulate in int64, as in torch."""
    if dtype is not None:
        return dtype.numpy
    if input._data.dtype.kind in "bi" or input._data.dtype.kind == "u":
        return np.dtype(np.int64)
    return None


class Sum(Function):
    backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        ctx.meta = (x._data.shape, axes, keepdim)
        data = x._data
        acc = _accumulate_dtype(x, dtype)
        if data.dtype == _dtype.bfloat16.numpy or data.dtype == np.float16:
            return data.astype(np.float32).sum(axis=axes, keepdims=keepdim).astype(
                acc or data.dtype)
        return np.asarray(data.sum(axis=axes, keepdims=keepdim, dtype=acc))

    @staticmethod
    def backward(ctx, grad):
        shape, axes, keepdim = ctx.meta
        return expand_reduced(grad, shape, axes, keepdim), None, None, None


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    axes = reduce_dims(input, dim)
    out = Sum.apply(input, axes, keepdim, dtype)
    if axes is None and not keepdim and out._grad_fn is not None:
        out._grad_fn.backward_name = "SumBackward0"
    return out


class Mean(Function):
    backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        data = x._data if dtype is None else x._data.astype(dtype.numpy)
        if data.dtype.kind not in "fcV":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {x.dtype.name.capitalize()}")
        ctx.meta = (x._data.shape, axes, keepdim)
        count = data.size if axes is None else int(np.prod([data.shape[a] for a in axes]))
        ctx.count = count
        if data.dtype == _dtype.bfloat16.numpy or data.dtype == np.float16:
            return data.astype(np.float32).mean(axis=axes, keepdims=keepdim).astype(data.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(data.mean(axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        shape, axes, keepdim = ctx.meta
        return expand_reduced(grad / ctx.count, shape, axes, keepdim), None, None, None


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    axes = reduce_dims(input, dim)
    out = Mean.apply(input, axes, keepdim, dtype)
    if axes is None and not keepdim and out._grad_fn is not None:
        out._grad_fn.backward_name = "MeanBackward0"
    return out


def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum `input` down to `size` (the inverse of broadcasting `size` up to input's shape)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(size)
    shape = input._data.shape
    if shape == size:
        return input
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    out = sum(input, axes, keepdim=True) if axes else input
    return out.reshape(size) if out.shape != size else out
