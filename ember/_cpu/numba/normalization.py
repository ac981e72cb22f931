"""numba twin of ember/_cpu/normalization.py: layer norm forward and backward in one
pass over each row (two reads of it, still in cache), rows split over the BLAS threads
by parallel_for; batch norm in two passes over each channel (statistics, then the
output), channels split over the threads.

Sums accumulate in float64 whatever x's dtype (torch accumulates float32 in float32), so
the statistics are at least as exact as the NumPy version's; layer norm's weight and
bias gradients are summed over rows in float64 too, each thread over its own rows, then
added in a fixed order.
"""
from __future__ import annotations

import numpy as np

from .. import buffers
from .. import normalization as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit


# The row sums below may be reassociated (summed in vector lanes): an order fixed by the
# compiled code, so results repeat on one machine; in float64 the order changes them by
# about 1e-16, far below the float32 results' rounding. 4x faster than a sequential sum.
@jit(fastmath={"reassoc", "contract"})
def _moments(row, eps):
    """(mean, 1 / sqrt(biased variance + eps)) of a row, summed in float64."""
    n = row.size
    total = 0.0
    for j in range(n):
        total += row[j]
    mean = total / n
    squares = 0.0
    for j in range(n):
        d = row[j] - mean
        squares += d * d
    return mean, 1.0 / np.sqrt(squares / n + eps)


@jit(fastmath={"reassoc", "contract"})
def _projections(g, weight, row, mean, rstd):
    """(mean of gw, mean of gw * xhat) over a row, gw = g * weight, xhat = (row - mean) * rstd,
    summed in float64."""
    sum_gw = 0.0
    sum_gw_xhat = 0.0
    for j in range(row.size):
        gw = g[j] * weight[j]
        sum_gw += gw
        sum_gw_xhat += gw * ((row[j] - mean) * rstd)
    return sum_gw / row.size, sum_gw_xhat / row.size


@jit(fastmath={"contract"})        # a multiply-add may be one FMA, as in torch's kernel
def _forward_rows(x, weight, bias, eps, y, mean, rstd):
    for r in range(x.shape[0]):
        row = x[r]
        mean[r], rstd[r] = _moments(row, eps)
        m, s = mean[r], rstd[r]                 # rounded to x's dtype, as y is computed
        out = y[r]
        for j in range(row.size):
            out[j] = (row[j] - m) * s * weight[j] + bias[j]


@jit(fastmath={"contract"})
def _backward_rows(grad, x, mean, rstd, weight, dx, dweight, dbias, want_x):
    """dx for these rows (if want_x); adds their sums of grad * xhat and of grad into
    dweight and dbias (float64)."""
    for r in range(x.shape[0]):
        g, row = grad[r], x[r]
        m, s = mean[r], rstd[r]
        for j in range(row.size):
            dweight[j] += g[j] * ((row[j] - m) * s)
            dbias[j] += g[j]
        if want_x:
            a, b = _projections(g, weight, row, m, s)
            out = dx[r]
            for j in range(row.size):
                out[j] = (g[j] * weight[j] - a - (row[j] - m) * s * b) * s


def _row_pieces(x: np.ndarray) -> list:
    """Slices of rows, one per thread when the pass is large enough to share."""
    rows = x.shape[0]
    return split(rows, threads()) if x.size >= MIN_PARALLEL_VALUES else [slice(0, rows)]


def _backward_arrays(grad: np.ndarray, x: np.ndarray, weight, want_x: bool, size: int):
    """C-contiguous grad and x, the weight (ones when None, `size` of them) and the
    array dx is written to (x itself, untouched, when dx is not wanted)."""
    x = np.ascontiguousarray(x)
    weight = np.ones(size, x.dtype) if weight is None else weight
    return (np.ascontiguousarray(grad), x, weight, np.empty_like(x) if want_x else x)


def layer_norm(x: np.ndarray, weight, bias, eps: float):
    # 3-4.5x faster on (768, 128) float32 (nanoGPT's), one thread
    if not compiled(x, weight, bias) or x.shape[1] == 0:
        return reference.layer_norm(x, weight, bias, eps)
    x = np.ascontiguousarray(x)
    rows, n = x.shape
    y = buffers.empty(x.shape, x.dtype)
    mean = np.empty(rows, x.dtype)
    rstd = np.empty(rows, x.dtype)
    weight = np.ones(n, x.dtype) if weight is None else weight
    bias = np.zeros(n, x.dtype) if bias is None else bias
    parallel_for(_row_pieces(x), lambda s: _forward_rows(x[s], weight, bias, eps, y[s], mean[s],
                                                         rstd[s]), x.size)
    return y, mean, rstd


def layer_norm_backward(grad: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        weight, output_mask: tuple):
    # 2.8-3x faster on (768, 128) float32, one thread
    if not compiled(grad, x, mean, rstd, weight) or x.shape[1] == 0:
        return reference.layer_norm_backward(grad, x, mean, rstd, weight, output_mask)
    grad, x, weight, dx = _backward_arrays(grad, x, weight, output_mask[0], x.shape[1])
    want_x, want_weight, want_bias = output_mask
    pieces = _row_pieces(x)
    sums = np.zeros((len(pieces), 2, x.shape[1]))     # per piece: dweight, dbias (float64)
    parallel_for(range(len(pieces)), lambda k: _backward_rows(
        grad[pieces[k]], x[pieces[k]], mean[pieces[k]], rstd[pieces[k]], weight,
        dx[pieces[k]], sums[k, 0], sums[k, 1], want_x), x.size)
    total = sums.sum(axis=0).astype(x.dtype)
    return (dx if want_x else None, total[0] if want_weight else None,
            total[1] if want_bias else None)


@jit(fastmath={"reassoc", "contract"})
def _channel_moments(x, c):
    """(mean, biased variance) of channel c of x (N, C, L), summed in float64."""
    count = x.shape[0] * x.shape[2]
    total = 0.0
    for n in range(x.shape[0]):
        for j in range(x.shape[2]):
            total += x[n, c, j]
    mean = total / count
    squares = 0.0
    for n in range(x.shape[0]):
        for j in range(x.shape[2]):
            d = x[n, c, j] - mean
            squares += d * d
    return mean, squares / count


@jit(fastmath={"reassoc", "contract"})
def _channel_sums(grad, x, c, mean):
    """(sum of grad, sum of grad * (x - mean)) over channel c, in float64."""
    sum_g = 0.0
    sum_g_centered = 0.0
    for n in range(x.shape[0]):
        for j in range(x.shape[2]):
            g = grad[n, c, j]
            sum_g += g
            sum_g_centered += g * (x[n, c, j] - mean)
    return sum_g, sum_g_centered


@jit(fastmath={"contract"})
def _batch_forward(x, weight, bias, eps, y, mean, var, rstd, first, last):
    for c in range(first, last):
        mean[c], var[c] = _channel_moments(x, c)
        rstd[c] = 1.0 / np.sqrt(var[c] + eps)
        m, scale, shift = mean[c], rstd[c] * weight[c], bias[c]
        for n in range(x.shape[0]):
            for j in range(x.shape[2]):
                y[n, c, j] = (x[n, c, j] - m) * scale + shift


@jit(fastmath={"contract"})
def _batch_backward(grad, x, mean, rstd, weight, dx, dweight, dbias, want_x, first, last):
    count = x.shape[0] * x.shape[2]
    for c in range(first, last):
        sum_g, sum_g_centered = _channel_sums(grad, x, c, mean[c])
        dbias[c] = sum_g
        dweight[c] = sum_g_centered * rstd[c]
        if want_x:
            # dx = k (g - mean(g)) - k rstd^2 mean(g (x - mean)) (x - mean), k = rstd w
            k = rstd[c] * weight[c]
            a = sum_g / count
            b = sum_g_centered / count * rstd[c] * rstd[c]
            for n in range(x.shape[0]):
                for j in range(x.shape[2]):
                    dx[n, c, j] = k * (grad[n, c, j] - a - (x[n, c, j] - mean[c]) * b)


def _channel_pieces(x: np.ndarray) -> list:
    """(first, last) channel ranges, one per thread when the pass is large enough."""
    channels = x.shape[1]
    parts = threads() if x.size >= MIN_PARALLEL_VALUES else 1
    return [(s.start, s.stop) for s in split(channels, parts)]


def batch_norm(x: np.ndarray, weight, bias, eps: float):
    # 2.5x faster on (32, 64, 1024) float32 (ResNet-18's first block), one thread
    if not compiled(x, weight, bias) or x.shape[0] * x.shape[2] == 0:
        return reference.batch_norm(x, weight, bias, eps)
    x = np.ascontiguousarray(x)
    channels = x.shape[1]
    y = np.empty_like(x)
    mean, var, rstd = (np.empty(channels, x.dtype) for _ in range(3))
    weight = np.ones(channels, x.dtype) if weight is None else weight
    bias = np.zeros(channels, x.dtype) if bias is None else bias
    parallel_for(_channel_pieces(x), lambda piece: _batch_forward(
        x, weight, bias, eps, y, mean, var, rstd, *piece), x.size)
    return y, mean, var, rstd


def batch_norm_backward(grad: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        weight, output_mask: tuple):
    # 2.5x faster on (32, 64, 1024) float32, one thread
    if not compiled(grad, x, mean, rstd, weight) or x.shape[0] * x.shape[2] == 0:
        return reference.batch_norm_backward(grad, x, mean, rstd, weight, output_mask)
    grad, x, weight, dx = _backward_arrays(grad, x, weight, output_mask[0], x.shape[1])
    want_x, want_weight, want_bias = output_mask
    dweight, dbias = np.empty(x.shape[1], x.dtype), np.empty(x.shape[1], x.dtype)
    parallel_for(_channel_pieces(x), lambda piece: _batch_backward(
        grad, x, mean, rstd, weight, dx, dweight, dbias, want_x, *piece), x.size)
    return (dx if want_x else None, dweight if want_weight else None,
            dbias if want_bias else None)
