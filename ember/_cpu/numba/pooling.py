"""numba twin of ember/_cpu/pooling.py: max pooling's backward in one pass over the
gradient, each value added straight to its window's winner (the NumPy version makes a
masked pass over the whole padded input per kernel offset), batch split over the BLAS
threads by parallel_for.

The other functions are the NumPy versions: compiled loops over windows measured 0.4-1.3x
their speed (float32, 2x2 and 3x3 windows, one thread), as a window's inner loop is too
short to pay while NumPy runs one long vectorised pass per kernel offset.

Where windows overlap, gradients are added in the order of the outputs (as torch's kernel
does) where the NumPy version goes offset by offset: an input element that wins three or
more windows can get a gradient differing in the last bit.
"""
from __future__ import annotations

import numpy as np

from .. import buffers
from .. import pooling as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit

windows = reference.windows
offset_dtype = reference.offset_dtype
max_pool = reference.max_pool
max_pool_select = reference.max_pool_select
max_pool_indices = reference.max_pool_indices
window_sum = reference.window_sum
window_spread = reference.window_spread


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
    batch = dx.shape[0]
    pieces = split(batch, threads()) if dx.size >= MIN_PARALLEL_VALUES else [slice(0, batch)]
    geometry = (_three(kernel, 1), _three(stride, 1), _three(dilation, 1),
                _three([lo for lo, _ in pads], 0))
    volumes = (_volume(grad), _volume(arg), _volume(dx))
    parallel_for(pieces, lambda s: _max_pool_backward(volumes[0][s], volumes[1][s], *geometry,
                                                      volumes[2][s]), dx.size)
    return dx
