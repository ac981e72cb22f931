"""Kernel family `pooling`: max and average pooling over windows, forward and backward
(NumPy reference).

Every function works on (N, C, *spatial) arrays with 1 to 3 spatial dims, in any memory
layout, and describes the windows with one entry per spatial dim:
- `kernel`, `stride`, `dilation`: the window's size, the step between windows, the step
  between a window's elements;
- `pads`: (before, after) padding; the after side includes any extra ceil_mode needs, so
  that the padded input holds every window of the output;
- `out`: the output's spatial size.
A window's elements are numbered by kernel offset, row-major over the kernel dims
(offset 0 is the window's first element): max pooling records the offset of each
window's winner, its backward sends each gradient to that offset. Results are new
C-contiguous arrays; the caller lays them out as torch does.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .mask import zero_unless


@functools.lru_cache(maxsize=256)
def windows(kernel: tuple, stride: tuple, dilation: tuple, out: tuple) -> tuple:
    """For each kernel offset in order, the slices of the padded spatial dims that its
    elements of all windows occupy (cached: a training loop repeats a few shapes)."""
    ranges = [[slice(k * d, k * d + (o - 1) * s + 1, s) for k in range(size)]
              for size, s, d, o in zip(kernel, stride, dilation, out)]
    return tuple((slice(None), slice(None)) + offset for offset in itertools.product(*ranges))


def with_padding(x: np.ndarray, pads, fill) -> np.ndarray:
    if not any(lo or hi for lo, hi in pads):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=fill)


def _unpadded(padded: np.ndarray, pads) -> np.ndarray:
    """A C-contiguous copy of the input region of a padded array."""
    inside = tuple(slice(lo, size - hi) for size, (lo, hi) in zip(padded.shape[2:], pads))
    return np.ascontiguousarray(padded[(slice(None), slice(None)) + inside])


def _zeros_padded(shape, pads, dtype) -> np.ndarray:
    return np.zeros(tuple(shape[:2]) + tuple(s + lo + hi for s, (lo, hi) in
                                             zip(shape[2:], pads)), dtype=dtype)


def offset_dtype(kernel) -> np.dtype:
    """The dtype of max pooling's winning offsets: uint8 when the window has fewer than
    256 elements, int64 otherwise."""
    return np.dtype(np.uint8 if math.prod(kernel) < 256 else np.int64)


# ---------------------------------------------------------------- max pooling
def max_pool(x: np.ndarray, kernel, stride, dilation, pads, out):
    """(offsets, values) of each window's maximum: the winning kernel offset (dtype
    `offset_dtype(kernel)`) and its value (x's dtype), both (N, C, *out). Padding never
    wins; ties go to the first offset; a NaN beats any number and the last NaN wins, as in
    torch's kernels. float16 and bfloat16 compare in float32.

    A running maximum over the offsets' strided views: no stacked copy of the windows."""
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min   # V: bfloat16
    xp = with_padding(x, pads, fill)
    if xp.dtype.kind == "V":
        xp = xp.astype(np.float32)
    views = [xp[w] for w in windows(kernel, stride, dilation, out)]
    best = views[0].copy()
    arg = np.zeros(best.shape, dtype=offset_dtype(kernel))
    with_nan = xp.dtype.kind == "f" and bool(np.isnan(xp).any())
    for k, v in enumerate(views[1:], 1):
        better = v > best
        if with_nan:
            better |= np.isnan(v)
        # Branch-free updates (masked assignment is several times slower on random masks):
        # arg = k where better, else unchanged, in modular integer arithmetic.
        arg += better.view(np.uint8).astype(arg.dtype, copy=False) * (arg.dtype.type(k) - arg)
        np.maximum(best, v, out=best)       # NaN once any element was NaN
    return arg, best.astype(x.dtype, copy=False)


def max_pool_backward(grad: np.ndarray, arg: np.ndarray, kernel, stride, dilation, pads,
                      in_shape) -> np.ndarray:
    """The input's gradient (in_shape, grad's dtype): each grad[n, c, *o] added to the
    input element at window o's offset arg[n, c, *o]."""
    padded = _zeros_padded(in_shape, pads, grad.dtype)
    # Windows that do not overlap (the usual stride = kernel) cover each input element at
    # most once: their contributions are written, not added.
    overlap = any(s < (k - 1) * d + 1 for k, s, d in zip(kernel, stride, dilation))
    for k, window in enumerate(windows(kernel, stride, dilation, grad.shape[2:])):
        contribution = zero_unless(grad, arg == k)      # 7x np.where's speed on random masks
        if overlap:
            padded[window] += contribution
        else:
            padded[window] = contribution
    return _unpadded(padded, pads)


def max_pool_select(x: np.ndarray, arg: np.ndarray, kernel, stride, dilation, pads,
                    out) -> np.ndarray:
    """Each window's element at offset arg (N, C, *out): max_pool_backward's adjoint,
    which max pooling's double backward runs on the gradient's gradient."""
    xp = with_padding(x, pads, 0)
    stacked = np.stack([xp[w] for w in windows(kernel, stride, dilation, out)])
    return np.take_along_axis(stacked, arg[None].astype(np.intp), 0)[0]


def max_pool_indices(arg: np.ndarray, spatial, kernel, stride, dilation, pads,
                     out) -> np.ndarray:
    """torch's `indices` (int64, (N, C, *out)): each winner's offset as a flat index into
    the unpadded input's spatial dims."""
    offsets = np.array(list(itertools.product(*(range(k) for k in kernel))))
    flat = np.zeros(arg.shape, np.int64)
    for d, (size, s, dil, (lo, _)) in enumerate(zip(spatial, stride, dilation, pads)):
        start = np.arange(out[d]).reshape((-1,) + (1,) * (len(out) - d - 1)) * s - lo
        flat = flat * size + start + offsets[arg, d] * dil
    return flat


# ---------------------------------------------------------------- average pooling
def window_sum(x: np.ndarray, kernel, stride, pads, out) -> np.ndarray:
    """The sum of each window of the zero-padded input, (N, C, *out), x's dtype (average
    pooling divides it by the window sizes)."""
    xp = with_padding(x, pads, 0)
    total = np.zeros(x.shape[:2] + tuple(out), dtype=x.dtype)
    for window in windows(kernel, stride, (1,) * len(kernel), tuple(out)):
        total += xp[window]
    return total


def window_spread(grad: np.ndarray, kernel, stride, pads, in_shape) -> np.ndarray:
    """window_sum's adjoint: each grad[n, c, *o] added to every input element of window o,
    (in_shape, grad's dtype)."""
    padded = _zeros_padded(in_shape, pads, grad.dtype)
    for window in windows(kernel, stride, (1,) * len(kernel), grad.shape[2:]):
        padded[window] += grad
    return _unpadded(padded, pads)
