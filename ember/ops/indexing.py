"""Indexing: `x[key]` and `x[key] = value`, basic (views) and advanced (copies)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import STATE as GRAD_STATE

__all__ = []


def numpy_key(key):
    """Translate an index key: Tensors become arrays, everything else passes through."""
    if isinstance(key, tuple):
        return tuple(numpy_key(k) for k in key)
    if isinstance(key, Tensor):
        data = key._data
        if data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return data
    if isinstance(key, list) and any(isinstance(k, Tensor) for k in key):
        return [numpy_key(k) for k in key]
    return key


def is_basic(key) -> bool:
    """True when `key` selects a view (only ints, slices, None and Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) and
               not isinstance(k, bool) for k in parts)


def _index_error(err: IndexError, shape) -> IndexError:
    msg = str(err).replace("axis", "dimension")
    return IndexError(msg)


class BasicIndex(Function):
    backward_name = "SliceBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, key):
        ctx.in_shape = x._data.shape
        ctx.key = key
        try:
            return x._data[key]
        except IndexError as err:
            raise _index_error(err, x._data.shape) from None

    @staticmethod
    def backward(ctx, grad):
        return IndexPutAccumulate.apply(grad, ctx.key, ctx.in_shape), None


class AdvancedIndex(BasicIndex):
    """Indexing with tensors, lists or masks: a copy, as in NumPy and torch."""
    backward_name = "IndexBackward0"
    is_view = False


class IndexPutAccumulate(Function):
    """zeros(shape) with `grad` added at `key` (repeated indices accumulate)."""
    backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key, shape):
        ctx.key = key
        out = np.zeros(shape, dtype=grad._data.dtype)
        if is_basic(key):
            out[key] = grad._data
        else:
            np.add.at(out, key, grad._data)
        return out

    @staticmethod
    def backward(ctx, g):
        return getitem(g, ctx.key) if is_basic(ctx.key) else \
            AdvancedIndex.apply(g, ctx.key), None, None


def getitem(input: Tensor, key) -> Tensor:
    if input._data.ndim == 0 and not isinstance(key, tuple) and key is not None \
            and key is not Ellipsis and not isinstance(key, Tensor):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    key = numpy_key(key)
    if is_basic(key):
        out = BasicIndex.apply(input, key)
        if out._grad_fn is not None and isinstance(key, (int, np.integer)):
            out._grad_fn.backward_name = "SelectBackward0"
        return out
    return AdvancedIndex.apply(input, key)


class IndexPut(Function):
    """The out-of-place form of `x[key] = value` (used when autograd records it)."""
    backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, key, value):
        ctx.key = key
        out = x._data.copy()
        out[key] = value._data if isinstance(value, Tensor) else value
        return out

    @staticmethod
    def backward(ctx, grad):
        need_x, _, need_v = ctx.needs_input_grad
        grad_x = IndexPut.apply(grad, ctx.key, 0.0) if need_x else None
        grad_v = None
        if need_v:
            grad_v = getitem(grad, ctx.key) if is_basic(ctx.key) else \
                AdvancedIndex.apply(grad, ctx.key)
        return grad_x, None, grad_v


def setitem(input: Tensor, key, value) -> None:
    key = numpy_key(key)
    if isinstance(value, Tensor) and value._data.dtype != input._data.dtype:
        value = value.to(input.dtype)
    recording = GRAD_STATE.enabled and (input._requires_grad or
                                        isinstance(value, Tensor) and value._requires_grad)
    if recording:
        input._inplace(lambda x, v: IndexPut.apply(x, key, v), value)
        return
    input._check_inplace()
    try:
        input._data[key] = value._data if isinstance(value, Tensor) else value
    except IndexError as err:
        raise _index_error(err, input._data.shape) from None
    except ValueError as err:
        raise RuntimeError(f"shape mismatch: value tensor cannot be broadcast to indexing "
                           f"result ({err})") from None
    input._vc[0] += 1
