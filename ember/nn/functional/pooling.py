"""Pooling: max/avg pools (1-3 d, ceil_mode, padding, dilation), adaptive pools, unpooling.

Max pooling finds, without autograd, the kernel offset of each window's maximum; the
differentiable part is then a selection of the input at those offsets, whose adjoint
sends each gradient to its window's winner (WindowSelect/WindowScatter, closed under
differentiation). Adaptive max pooling and unpooling do the same with flat input indices
(Gather/Scatter). Average pooling is a window sum (adjoint: spreading a gradient back
over the windows) divided by the window sizes; adaptive average pooling is a mean over
the dims pooled to size 1 and a product with one small averaging matrix per other
pooled dim. The window loops are the kernel family ember/_cpu/pooling.py.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..._cpu import kernels
from ..._memory_format import as_format, contiguous_format, format_of
from ..._recorded_call import recorded_call, replayed_call
from ..._tensor import Tensor
from ...autograd.function import Function
from ...ops._value_checks import check_values
from ...ops.indexing import _named
from ._checks import require_floating
from .conv import _tuple
from ...amp.policy import FP32, autocast_op

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "lp_pool1d", "lp_pool2d", "lp_pool3d"]


# ---------------------------------------------------------------- gather / scatter
def _flat_spatial(a: np.ndarray) -> np.ndarray:
    """(N, C, *spatial) -> (N, C, prod(spatial)), also when N or C is 0."""
    return a.reshape(a.shape[:2] + (math.prod(a.shape[2:]),))


class Gather(Function):
    """out[n, c, j] = x[n, c, indices[n, c, j]] over flattened spatial dims."""
    backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, indices, out_shape):
        ctx.x_shape = x.shape
        ctx.indices = indices
        flat = np.take_along_axis(_flat_spatial(x), _flat_spatial(indices), axis=2)
        return flat.reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        return Scatter.apply(grad, ctx.indices, ctx.x_shape), None, None


class Scatter(Function):
    """The adjoint of Gather: add each g[n, c, j] into out[n, c, indices[n, c, j]]."""
    backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, indices, out_shape):
        n, c = out_shape[:2]
        size = math.prod(out_shape[2:])
        ctx.g_shape = g.shape
        ctx.indices = indices
        rows = np.arange(n * c).reshape(n, c, 1) * size
        flat = (rows + _flat_spatial(indices)).ravel()
        summed = np.bincount(flat, weights=g.ravel(), minlength=n * c * size)
        return summed.astype(g.dtype).reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        return Gather.apply(grad, ctx.indices, ctx.g_shape), None, None


def _picked(x: Tensor, indices: np.ndarray, backward_name: str, unbatched: bool,
            return_indices: bool):
    """A max pool's result from the flat spatial `indices` of its maxima: the gathered
    values (differentiable), with the indices when asked; unbatched input loses its batch
    dim again."""
    y = _named(Gather.apply(x, indices, tuple(x.shape[:2]) + indices.shape[2:]), backward_name)
    idx = Tensor._wrap(indices)
    if unbatched:
        y, idx = y.squeeze(0), idx.squeeze(0)
    return (y, idx) if return_indices else y


# ---------------------------------------------------------------- window geometry
def _pool_geometry(spatial, kernel, stride, padding, dilation, ceil_mode):
    """((before, after) padding per dim, with any extra that ceil_mode needs on the after
    side; the output's spatial size)."""
    pads, out = [], []
    for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation):
        span = n + 2 * p - d * (k - 1) - 1
        size = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (size - 1) * s >= n + p:
            size -= 1  # the last window must start inside the input or its left padding
        out.append(size)
        extra = max(0, (size - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
        pads.append((p, p + extra))
    return tuple(pads), tuple(out)


def _check_pool_args(spatial, kernel, stride, padding, n):
    for k, p in zip(kernel, padding):
        if p > k / 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should be greater than zero")


def _batched(input: Tensor, n: int, name: str):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got: {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.ndim == n + 1 else (input, False)


# ---------------------------------------------------------------- max pooling
def _stride(stride, kernel_size, n: int) -> tuple:
    """The pool's stride: kernel_size when stride is None or empty, as in torch."""
    return _tuple(kernel_size if stride is None or stride in ([], ()) else stride, n, "stride")


# A max pool's `window` is (kernel, stride, dilation, pads), as the kernel family
# ember/_cpu/pooling.py takes it; its winners are kernel offsets `arg`.
class WindowSelect(Function):
    """out = each window's element at kernel offset `arg` (the winner of max pooling)."""
    backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, arg, window, out, selected=None):
        ctx.args = (arg, window, x.shape)
        if selected is not None:      # max pooling already has the values
            return selected
        return kernels.family("pooling").max_pool_select(x, arg, *window, out)

    @staticmethod
    def backward(ctx, grad):
        arg, window, x_shape = ctx.args
        return WindowScatter.apply(grad, arg, window, x_shape), None, None, None, None


class WindowScatter(Function):
    """The adjoint of WindowSelect: each g goes to its window's element at offset `arg`."""
    backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, arg, window, x_shape):
        ctx.args = (arg, window, g.shape[2:])
        return kernels.family("pooling").max_pool_backward(g, arg, *window, x_shape)

    @staticmethod
    def backward(ctx, grad):
        arg, window, out = ctx.args
        return WindowSelect.apply(grad, arg, window, out), None, None, None


def _max_poolnd(n, name, input, kernel_size, stride, padding, dilation, ceil_mode,
                return_indices):
    x, unbatched = _batched(input, n, name)
    kernel = _tuple(kernel_size, n, "kernel_size")
    stride = _stride(stride, kernel_size, n)
    padding = _tuple(padding, n, "padding")
    dilation = _tuple(dilation, n, "dilation")
    _check_pool_args(x.shape[2:], kernel, stride, padding, n)
    pads, out = _pool_geometry(tuple(x.shape[2:]), kernel, stride, padding, dilation, ceil_mode)
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, x.shape[1:]))}). Calculated "
                           f"output size: ({'x'.join(map(str, (x.shape[1],) + out))}). Output "
                           "size is too small")
    window = (kernel, stride, dilation, pads)
    arg, best = _max_pool_winners(x, window, out)
    y = WindowSelect.apply(x, arg, window, out, best)
    _named(y, f"MaxPool{n}DWithIndicesBackward0" if n > 1 else "SqueezeBackward1")
    if not return_indices:
        return y.squeeze(0) if unbatched else y
    idx = Tensor._wrap(_max_pool_indices(arg, tuple(x.shape[2:]), window, out))
    if unbatched:
        y, idx = y.squeeze(0), idx.squeeze(0)
    return y, idx


@replayed_call
def _max_pool_winners(x: Tensor, window, out) -> tuple:
    """Each window's winning kernel offset and its value (in x's memory format)."""
    data = x.numpy(force=True)
    arg, best = kernels.family("pooling").max_pool(data, *window, out)
    return arg, as_format(best, format_of(data))


@replayed_call
def _max_pool_indices(arg: np.ndarray, spatial: tuple, window, out) -> np.ndarray:
    """The flat input positions of the winners (max pooling's `indices`)."""
    return kernels.family("pooling").max_pool_indices(arg, spatial, *window, out)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling over input (N, C, L) or (C, L); stride defaults to kernel_size;
    return_indices=True also returns the argmax positions."""
    return _max_poolnd(1, "max_pool1d", input, kernel_size, stride, padding, dilation,
                       ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over input (N, C, H, W) or (C, H, W); stride defaults to kernel_size;
    return_indices=True also returns the argmax positions."""
    return _max_poolnd(2, "max_pool2d", input, kernel_size, stride, padding, dilation,
                       ceil_mode, return_indices)


@autocast_op(FP32)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over input (N, C, D, H, W) or (C, D, H, W); stride defaults to kernel_size;
    return_indices=True also returns the argmax positions."""
    return _max_poolnd(3, "max_pool3d", input, kernel_size, stride, padding, dilation,
                       ceil_mode, return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """max_pool1d returning (output, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """max_pool2d returning (output, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """max_pool3d returning (output, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


class Unpool(Function):
    """Max unpooling: zeros of `out_shape` with out[n, c, indices[n, c, j]] = x[n, c, j] over
    flattened spatial dims. Where indices repeat (overlapping windows) the last write wins,
    as in torch on the CPU; every input still reads its gradient at its index (Gather)."""
    backward_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, x, indices, out_shape):
        ctx.x_shape = x.shape
        ctx.indices = indices
        n, c = out_shape[:2]
        size = math.prod(out_shape[2:])
        flat = (np.arange(n * c).reshape(n, c, 1) * size + _flat_spatial(indices)).ravel()
        _, first_of_reversed = np.unique(flat[::-1], return_index=True)
        last = flat.size - 1 - first_of_reversed        # the last write to each position
        out = np.zeros(n * c * size, dtype=x.dtype)
        out[flat[last]] = x.ravel()[last]
        return out.reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        return Gather.apply(grad, ctx.indices, ctx.x_shape), None, None


def _unpool_size(x, kernel, stride, padding, output_size) -> tuple:
    """The unpooled spatial size: the pre-pooling size, or `output_size` (spatial dims, or
    with N and C in front) when it is within a stride of it."""
    n = len(kernel)
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in
                    zip(x.shape[-n:], stride, padding, kernel))
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d, (size, step) in enumerate(zip(output_size, stride)):
        if not default[d] - step < size < default[d] + step:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{default[d] - step} and {default[d] + step})")
    return tuple(int(size) for size in output_size)


def _check_unpool_indices(x: Tensor, indices: Tensor, spatial: tuple) -> np.ndarray:
    if indices.dtype.numpy != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype.scalar_name}")
    if tuple(indices.shape) != tuple(x.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    check_values(_check_unpool_positions, indices, spatial)
    idx = indices.numpy(force=True)
    return idx


def _check_unpool_positions(idx: np.ndarray, spatial: tuple) -> None:
    bad = (idx < 0) | (idx >= math.prod(spatial))
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {idx[bad][0]} (output volumes are of "
                           f"size {'x'.join(str(s) for s in spatial)})")


def _max_unpoolnd(n, input, indices, kernel_size, stride, padding, output_size):
    kernel = _tuple(kernel_size, n, "kernel_size")
    stride = _tuple(stride if stride is not None else kernel_size, n, "stride")
    padding = _tuple(padding, n, "padding")
    spatial = _unpool_size(input, kernel, stride, padding, output_size)
    # torch unpools one dim as two: its volume reads Lx1 and its node is a squeeze
    idx = _check_unpool_indices(input, indices, spatial + (1,) * (n == 1))
    x, unbatched = _batched(input, n, f"max_unpool{n}d")
    if unbatched:
        idx = idx[None]
    y = Unpool.apply(x, idx, tuple(x.shape[:2]) + spatial)
    if n != 2:
        _named(y, "SqueezeBackward1" if n == 1 else "MaxUnpool3DBackward0")
    return y.squeeze(0) if unbatched else y


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool1d: put each value at its `indices` position in a zero tensor of
    the pre-pooling size (or output_size)."""
    return _max_unpoolnd(1, input, indices, kernel_size, stride, padding, output_size)


@autocast_op(FP32)
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool2d: scatter the values to their `indices` in a zero tensor of the
    pre-pooling size (or output_size)."""
    return _max_unpoolnd(2, input, indices, kernel_size, stride, padding, output_size)


@autocast_op(FP32)
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool3d: scatter the values to their `indices` in a zero tensor of the
    pre-pooling size (or output_size)."""
    return _max_unpoolnd(3, input, indices, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- average pooling
# An average pool's `window` is (kernel, stride, pads).
class WindowSum(Function):
    """Sum of each pooling window of the zero-padded input."""
    backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, window, out):
        ctx.args = (window, out, x.shape)
        total = kernels.family("pooling").window_sum(x, *window, out)
        return as_format(total, format_of(x))

    @staticmethod
    def backward(ctx, grad):
        window, out, x_shape = ctx.args
        return WindowSpread.apply(grad, window, x_shape), None, None


class WindowSpread(Function):
    """The adjoint of WindowSum: add each window's value to every input it covers."""
    backward_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, window, x_shape):
        ctx.args = (window, g.shape[2:])
        return kernels.family("pooling").window_spread(g, *window, x_shape)

    @staticmethod
    def backward(ctx, grad):
        window, out = ctx.args
        return WindowSum.apply(grad, window, out), None, None


def _window_counts(spatial, kernel, stride, padding, out, count_include_pad):
    """How many elements each window averages over (torch's divisor), per spatial dim."""
    counts = np.ones(out)
    for d, (n, k, s, p, o) in enumerate(zip(spatial, kernel, stride, padding, out)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            size = end - start
        else:
            size = np.minimum(end, n) - np.maximum(start, 0)
        counts = counts * size.reshape((-1,) + (1,) * (len(out) - d - 1))
    return counts


@replayed_call
def _as_constant(array: np.ndarray) -> Tensor:
    """A Tensor on an array computed from shapes only (window counts, an averaging
    matrix); compile's tracer replays the call that made it, so it is no frozen value."""
    return Tensor._wrap(array)


def _avg_poolnd(n, name, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
    x, unbatched = _batched(input, n, name)
    kernel = _tuple(kernel_size, n, "kernel_size")
    stride = _stride(stride, kernel_size, n)
    padding = _tuple(padding, n, "padding")
    _check_pool_args(x.shape[2:], kernel, stride, padding, n)
    pads, out = _pool_geometry(tuple(x.shape[2:]), kernel, stride, padding, (1,) * n,
                               ceil_mode)
    if divisor_override:
        divisor = float(divisor_override)
    else:
        counts = _window_counts(tuple(x.shape[2:]), kernel, stride, padding, out,
                                count_include_pad)
        divisor = float(counts.flat[0]) if np.all(counts == counts.flat[0]) \
            else _as_constant(counts.astype(x.dtype.numpy))
    total = WindowSum.apply(x, (kernel, stride, pads), out)
    if x.is_floating_point() or x.is_complex():
        y = total / divisor
    else:  # integers stay integers: the mean truncated toward zero, as in torch
        y = total.div(divisor if isinstance(divisor, Tensor) else int(divisor),
                      rounding_mode="trunc")
    _named(y, f"AvgPool{n}DBackward0" if n > 1 else "SqueezeBackward1")
    return y.squeeze(0) if unbatched else y


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over input (N, C, L) or (C, L); stride defaults to kernel_size;
    count_include_pad counts zero padding in the divisor."""
    return _avg_poolnd(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over input (N, C, H, W) or (C, H, W); divisor_override, when given,
    replaces the window size as the divisor."""
    return _avg_poolnd(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override)


@autocast_op(FP32)
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over input (N, C, D, H, W) or (C, D, H, W); divisor_override, when given,
    replaces the window size as the divisor."""
    return _avg_poolnd(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-D power-average pooling: (sum of x**p over each window)**(1/p), p = norm_type."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling: (sum of x**p over each window)**(1/p), p = norm_type."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling: (sum of x**p over each window)**(1/p), p = norm_type."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


_MAX_POOLS = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    """(sum of x^p over each window) ^ (1/p); p = +-inf is the max (min) of |x|."""
    if norm_type in (math.inf, -math.inf):
        sign = 1 if norm_type > 0 else -1
        return sign * _MAX_POOLS[n](sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    kernel = _tuple(kernel_size, n, "kernel_size")
    pooled = _avg_poolnd(n, f"lp_pool{n}d", input ** norm_type, kernel, stride, 0, ceil_mode,
                         True, None)
    scaled = pooled.sign() * pooled.abs().relu() * math.prod(kernel)
    return scaled ** (1.0 / norm_type)


# ---------------------------------------------------------------- adaptive pooling
def _adaptive_bounds(in_size: int, out_size: int):
    """torch's adaptive windows: [floor(i*in/out), ceil((i+1)*in/out)) for each output i."""
    i = np.arange(out_size)
    return (i * in_size) // out_size, -((-(i + 1) * in_size) // out_size)


def _averaging_matrix(in_size: int, out_size: int, dtype) -> np.ndarray:
    start, end = _adaptive_bounds(in_size, out_size)
    cols = np.arange(in_size)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _output_size(output_size, spatial, n):
    sizes = _tuple(output_size, n, "output_size")
    return tuple(s if o is None else o for o, s in zip(sizes, spatial))


@recorded_call
def _adaptive_avg_poolnd(n, input, output_size):
    x, unbatched = _batched(input, n, f"adaptive_avg_pool{n}d")
    out = _output_size(output_size, tuple(x.shape[2:]), n)
    to_one = [2 + d for d, (size, o) in enumerate(zip(x.shape[2:], out)) if o == 1 != size]
    y = x.mean(dim=to_one, keepdim=True) if to_one else x     # one pass (ResNet's head)
    for d, (size, o) in enumerate(zip(x.shape[2:], out)):
        if size == o or o == 1:
            continue
        # Contract spatial dim d with its averaging matrix: a differentiable matmul.
        m = _as_constant(_averaging_matrix(size, o, x.dtype.numpy))
        y = (y.transpose(2 + d, -1) @ m.t()).transpose(2 + d, -1)
    if y is x:
        y = x.clone()
    fmt = format_of(x.numpy(force=True))
    if fmt is not contiguous_format:            # channels-last stays channels-last
        y = y.contiguous(memory_format=fmt)
    return y.squeeze(0) if unbatched else y


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling whose windows are chosen so the output has length output_size."""
    return _adaptive_avg_poolnd(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling whose windows are chosen so the output is output_size (an int or (H, W);
    None keeps that dimension)."""
    return _adaptive_avg_poolnd(2, input, output_size)


@autocast_op(FP32)
def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling whose windows are chosen so the output is output_size (an int or (D, H,
    W); None keeps that dimension)."""
    return _adaptive_avg_poolnd(3, input, output_size)


def _argmax_last_nan(rows: np.ndarray) -> np.ndarray:
    """argmax over the last axis, where a NaN beats any number and the last NaN wins (as
    torch's max-pool kernels, which test `value > max || isnan(value)`)."""
    local = np.argmax(rows, axis=-1)
    if rows.dtype.kind == "f":
        nan = np.isnan(rows)
        last_nan = rows.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
        local = np.where(nan.any(-1), last_nan, local)
    return local


def _adaptive_max_poolnd(n, input, output_size, return_indices):
    x, unbatched = _batched(input, n, f"adaptive_max_pool{n}d")
    require_floating(x, "adaptive_max_pool3d_cpu" if n == 3 else "adaptive_max_pool2d")
    spatial = tuple(x.shape[2:])
    out = _output_size(output_size, spatial, n)
    indices = _adaptive_max_indices(x, out)
    return _picked(x, indices, f"AdaptiveMaxPool{n}DBackward0", unbatched, return_indices)


@replayed_call
def _adaptive_max_indices(x: Tensor, out: tuple) -> np.ndarray:
    """The flat spatial position of each adaptive window's maximum (NaN wins)."""
    data = x.numpy(force=True)
    spatial = tuple(data.shape[2:])
    bounds = [_adaptive_bounds(s, o) for s, o in zip(spatial, out)]
    indices = np.empty(data.shape[:2] + out, dtype=np.int64)
    # One iteration per output cell (output sizes are small); each is a vectorised argmax.
    for cell in itertools.product(*(range(o) for o in out)):
        region = tuple(slice(b[0][i], b[1][i]) for b, i in zip(bounds, cell))
        block = data[(slice(None), slice(None)) + region]
        local = _argmax_last_nan(_flat_spatial(block))
        coords = np.unravel_index(local, block.shape[2:])
        flat = np.zeros_like(local)
        for c, r, size in zip(coords, region, spatial):
            flat = flat * size + c + r.start
        indices[(slice(None), slice(None)) + cell] = flat
    return indices


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D max pooling whose windows give an output of length output_size; return_indices=True also
    returns the argmax positions."""
    return _adaptive_max_poolnd(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling whose windows give an output of size output_size; return_indices=True also
    returns the argmax positions."""
    return _adaptive_max_poolnd(2, input, output_size, return_indices)


@autocast_op(FP32)
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D max pooling whose windows give an output of size output_size; return_indices=True also
    returns the argmax positions."""
    return _adaptive_max_poolnd(3, input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool1d returning (output, indices)."""
    return _adaptive_max_poolnd(1, input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool2d returning (output, indices)."""
    return _adaptive_max_poolnd(2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool3d returning (output, indices)."""
    return _adaptive_max_poolnd(3, input, output_size, True)
