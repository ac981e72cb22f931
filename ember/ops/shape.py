"""Shape ops. Views (view, expand, permute, transpose, squeeze, unsqueeze, ...) are
NumPy views of the same memory, so writes through a view reach its base as in torch."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function

METHODS = ["view", "reshape", "view_as", "reshape_as", "expand", "expand_as", "permute",
           "transpose", "swapaxes", "swapdims", "t", "squeeze", "unsqueeze", "flatten",
           "unflatten", "contiguous"]

__all__ = ["view", "reshape", "expand", "permute", "transpose", "swapaxes", "swapdims", "t",
           "squeeze", "unsqueeze", "flatten", "unflatten"]


def infer_shape(shape, numel: int) -> tuple:
    """Resolve one -1 in `shape` and check the element count, with torch's errors."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class View(Function):
    backward_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x._data.shape
        try:
            return x._data.reshape(shape, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


class CopyReshape(Function):
    backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x._data.shape
        return x._data.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


def view(input: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return input.to(shape[0])  # view(dtype) with an equal itemsize is not supported
    return View.apply(input, infer_shape(shape, input._data.size))


def reshape(input: Tensor, *shape) -> Tensor:
    shape = infer_shape(shape, input._data.size)
    if shape == input._data.shape:
        return View.apply(input, shape)
    try:
        input._data.reshape(shape, copy=False)
    except ValueError:
        return CopyReshape.apply(input, shape)
    return View.apply(input, shape)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


class Expand(Function):
    backward_name = "ExpandBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x._data.shape
        return np.broadcast_to(x._data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.in_shape), None


def expand(input: Tensor, *sizes) -> Tensor:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(sizes)}): the "
                           "number of sizes provided ({}) must be greater or equal to the number "
                           "of dimensions in the tensor ({})".format(len(sizes), len(shape)))
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        own = shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({own}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        target.append(int(s))
    return Expand.apply(input, tuple(target))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


class Permute(Function):
    backward_name = "PermuteBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x._data.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx.dims))), None


def permute(input: Tensor, *dims) -> Tensor:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = tuple(input._wrap_dim(d) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims)


class Transpose(Function):
    backward_name = "TransposeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return np.swapaxes(x._data, dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    n = input._data.ndim
    if n == 0:
        return View.apply(input, ())
    return Transpose.apply(input, input._wrap_dim(dim0), input._wrap_dim(dim1))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D")
    return transpose(input, 0, 1) if input._data.ndim == 2 else View.apply(input,
                                                                             input._data.shape)


def squeeze(input: Tensor, dim=None) -> Tensor:
    shape = input._data.shape
    if dim is None:
        dims = {i for i, s in enumerate(shape) if s == 1}
    else:
        dims = {input._wrap_dim(d) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
        dims = {d for d in dims if shape and shape[d] == 1}
    return _named(View.apply(input, tuple(s for i, s in enumerate(shape) if i not in dims)),
                  "SqueezeBackward0")


def _named(out: Tensor, backward_name: str) -> Tensor:
    """Give a generic view node torch's name for the op the user called."""
    if out._grad_fn is not None:
        out._grad_fn.backward_name = backward_name
    return out


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    shape = input._data.shape
    d = input._wrap_dim(dim, len(shape) + 1)
    return _named(View.apply(input, shape[:d] + (1,) + shape[d:]), "UnsqueezeBackward0")


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = input._data.shape
    if not shape:
        return reshape(input, (1,))
    s, e = input._wrap_dim(start_dim), input._wrap_dim(end_dim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    shape = input._data.shape
    d = input._wrap_dim(dim)
    inner = infer_shape(tuple(sizes), shape[d])
    return view(input, shape[:d] + inner + shape[d + 1:])


def contiguous(input: Tensor, memory_format=None) -> Tensor:
    if input._data.flags.c_contiguous:
        return input
    return input.clone()
