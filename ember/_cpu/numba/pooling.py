"""numba twin of ember/_cpu/pooling.py: max pooling, forward and backward.

- Forward (2-d and 1-d windows of up to 64 elements, C-contiguous input): one kernel
  compiled per window size, so that the loops over the window are unrolled; each
  window's maximum and winning offset stay in registers, the offset updated by
  arithmetic rather than a branch (on real data the comparisons are unpredictable, and a
  branch per element made a first version 2.5x slower than NumPy). A NaN, rare, sends
  its window through an exact second pass. 2.6-3.7x the NumPy version on one thread.
- Backward: one pass over the gradient, each value added straight to its window's
  winner (the NumPy version makes a masked pass over the whole padded input per kernel
  offset).
Both split the batch over the BLAS threads by parallel_for.

The other functions are the NumPy versions (3-d windows and average pooling gained
nothing measurable compiled: NumPy runs one long vectorised pass per kernel offset).

Where windows overlap, gradients are added in the order of the outputs (as torch's kernel
does) where the NumPy version goes offset by offset: an input element that wins three or
more windows can get a gradient differing in the last bit.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import buffers
from .. import pooling as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit

windows = reference.windows
offset_dtype = reference.offset_dtype
max_pool_select = reference.max_pool_select
max_pool_indices = reference.max_pool_indices
window_sum = reference.window_sum
window_spread = reference.window_spread


# Windows with more elements are pooled by the NumPy version (an unrolled kernel per
# window size grows with it).
_MAX_UNROLLED_WINDOW = 64


@functools.lru_cache(maxsize=None)
def _max_pool_kernel(kh: int, kw: int):
    """The forward kernel for kh x kw windows: (x, stride, dilation, arg, best) fills
    arg and best (N, C, OH, OW) from x (N, C, H, W), padded already. numba keys its
    on-disk cache by the closure's values, so each window size compiles once per machine."""
    @jit
    def max_pool_2d(x, sh, sw, dh, dw, arg, best):
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                for oh in range(best.shape[2]):
                    for ow in range(best.shape[3]):
                        h0, w0 = oh * sh, ow * sw
                        b = x[n, c, h0, w0]
                        a = 0
                        nan = b != b
                        for i in range(kh):
                            for j in range(kw):
                                v = x[n, c, h0 + i * dh, w0 + j * dw]
                                a += np.int64(v > b) * (i * kw + j - a)
                                b = max(b, v)
                                nan |= v != v
                        if nan:             # the last NaN wins, as in the NumPy version
                            for i in range(kh):
                                for j in range(kw):
                                    v = x[n, c, h0 + i * dh, w0 + j * dw]
                                    if v != v:
                                        a, b = i * kw + j, v
                        best[n, c, oh, ow] = b
                        arg[n, c, oh, ow] = a
    return max_pool_2d


def max_pool(x: np.ndarray, kernel, stride, dilation, pads, out):
    # 2.6-3.7x the NumPy version on float32 (64, 10, 24, 24) and (32, 64, 32, 32) with
    # 2x2 windows, and 3x3 with stride 2; one thread
    if x.ndim not in (3, 4) or not compiled(x) or not x.flags.c_contiguous or \
            np.prod(kernel) > _MAX_UNROLLED_WINDOW:
        return reference.max_pool(x, kernel, stride, dilation, pads, out)
    if x.ndim == 3:             # 1-d windows: pooled as 1 x k windows of a 2-d input
        arg, best = max_pool(x[:, :, None], (1,) + tuple(kernel), (1,) + tuple(stride),
                             (1,) + tuple(dilation), ((0, 0),) + tuple(pads), (1,) + tuple(out))
        return arg[:, :, 0], best[:, :, 0]
    xp = reference.with_padding(x, pads, -np.inf)
    arg = np.empty(x.shape[:2] + tuple(out), reference.offset_dtype(kernel))
    best = np.empty(arg.shape, x.dtype)
    kernel_fn = _max_pool_kernel(*kernel)
    _over_batch(lambda s: kernel_fn(xp[s], *stride, *dilation, arg[s], best[s]), best)
    return arg, best


def _over_batch(task, result: np.ndarray) -> None:
    """task(batch slice) over the batch, spread over the threads when result is large."""
    batch = result.shape[0]
    pieces = split(batch, threads()) if result.size >= MIN_PARALLEL_VALUES else \
        [slice(0, batch)]
    parallel_for(pieces, task, result.size)


@jit
def _max_pool_backward(grad, arg, kernel, stride, dilation, lo, dx):
    """Adds grad (N, C, OD, OH, OW) into dx (N, C, D, H, W) at the winners' positions."""
    kd, kh, kw = kernel
    moves = np.empty((kd * kh * kw, 3), np.int64)     # offset -> its position in a window
    for i in range(kd):
        for j in range(kh):
            for k in range(kw):
                offset = (i * kh + j) * kw + k
                moves[offset, 0] = i * dilation[0]
                moves[offset, 1] = j * dilation[1]
                moves[offset, 2] = k * dilation[2]
    depth, height, width = dx.shape[2:]
    for n in range(grad.shape[0]):
        for c in range(grad.shape[1]):
            plane = dx[n, c]
            for od in range(grad.shape[2]):
                for oh in range(grad.shape[3]):
                    g, a = grad[n, c, od, oh], arg[n, c, od, oh]
                    d0 = od * stride[0] - lo[0]
                    h0 = oh * stride[1] - lo[1]
                    for ow in range(g.size):
                        move = moves[a[ow]]
                        d, h = d0 + move[0], h0 + move[1]
                        w = ow * stride[2] - lo[2] + move[2]
                        if 0 <= d < depth and 0 <= h < height and 0 <= w < width:
                            plane[d, h, w] += g[ow]


def _volume(a: np.ndarray) -> np.ndarray:
    """a (N, C, *spatial) as (N, C, D, H, W): a view with leading unit spatial dims."""
    return a[(slice(None), slice(None)) + (None,) * (5 - a.ndim)]


def _three(values, fill: int) -> tuple:
    """Per-dim values as a 3-tuple, the missing leading dims filled."""
    return (fill,) * (3 - len(values)) + tuple(int(v) for v in values)


def max_pool_backward(grad: np.ndarray, arg: np.ndarray, kernel, stride, dilation, pads,
                      in_shape) -> np.ndarray:
    # 2.7-3.4x faster on MNIST's float32 pools ((64, 10, 24, 24) and (64, 20, 8, 8), 2x2),
    # 6-9.5x with 3x3 windows (stride 1 or 2, padding 1) on (32, 64, 32, 32); one thread
    if not compiled(grad):
        return reference.max_pool_backward(grad, arg, kernel, stride, dilation, pads, in_shape)
    dx = buffers.empty(in_shape, grad.dtype)
    dx.fill(0)
    geometry = (_three(kernel, 1), _three(stride, 1), _three(dilation, 1),
                _three([lo for lo, _ in pads], 0))
    volumes = (_volume(grad), _volume(arg), _volume(dx))
    _over_batch(lambda s: _max_pool_backward(volumes[0][s], volumes[1][s], *geometry,
                                             volumes[2][s]), dx)
    return dx
