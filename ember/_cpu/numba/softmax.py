"""Compiled twin of ember/_cpu/softmax.py: softmax, log_softmax, log_softmax's backward and
cross-entropy each make one pass over the rows (the last axis; cross-entropy's classes of
an (N, C) input), with a vectorised exp (`_exp.shifted_exp`) and eight-way row sums
(`_rows`); softmax's backward stays NumPy's.

Other axes, layouts with classes not last, and dtypes other than float32/float64 go to
the NumPy reference. Rows are summed in a different order than NumPy's pairwise sums
(eight partial sums), so results differ from the reference by a few ulps.
"""
from __future__ import annotations

import math

import numpy as np

from .. import softmax as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit
from ._exp import shifted_exp
from ._rows import row_max, row_sum

# softmax's backward is an einsum and two passes in NumPy: a kernel measured 1.0-1.1x
# (float32), 1.2-1.3x (float64) on (3072, 64), not worth a twin.
softmax_backward = reference.softmax_backward


def _over_rows(kernel, *arrays) -> None:
    """kernel(*arrays) on blocks of rows (dim 0), spread over the threads when large."""
    size = arrays[0].size
    parts = 2 * threads() if size >= MIN_PARALLEL_VALUES else 1
    parallel_for(split(arrays[0].shape[0], parts),
                 lambda part: kernel(*(a[part] for a in arrays)), size)


def _last_axis_rows(a: np.ndarray, axis: int) -> bool:
    """Whether `a` suits the row kernels: compiled dtype, softmax over a non-empty last axis."""
    return compiled(a) and a.ndim > 0 and a.size > 0 and axis in (-1, a.ndim - 1)


def _as_rows(a: np.ndarray) -> np.ndarray:
    """a as C-contiguous (rows, last-axis length)."""
    return np.ascontiguousarray(a).reshape(-1, a.shape[-1])


@jit
def _softmax_rows(x, out):
    n, m = x.shape
    for i in range(n):
        shift = row_max(x[i], m)
        for j in range(m):
            out[i, j] = shifted_exp(x[i, j] - shift)
        total = row_sum(out[i], m)
        for j in range(m):
            out[i, j] = out[i, j] / total


# 1.9x on (3072, 64) float32, 2.4x float64
def softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """exp(a) / sum(exp(a)) along `axis` (see the reference)."""
    if not _last_axis_rows(a, axis):
        return reference.softmax(a, axis)
    x = _as_rows(a)
    out = np.empty_like(x)
    _over_rows(_softmax_rows, x, out)
    return out.reshape(a.shape)


@jit
def _log_softmax_rows(x, out):
    n, m = x.shape
    for i in range(n):
        shift = row_max(x[i], m)
        for j in range(m):
            out[i, j] = shifted_exp(x[i, j] - shift)
        log_total = np.log(row_sum(out[i], m))
        for j in range(m):
            out[i, j] = (x[i, j] - shift) - log_total


# 2.0x on (3072, 64) float32, 2.4x float64
def log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """a - log(sum(exp(a))) along `axis` (see the reference)."""
    if not _last_axis_rows(a, axis):
        return reference.log_softmax(a, axis)
    x = _as_rows(a)
    out = np.empty_like(x)
    _over_rows(_log_softmax_rows, x, out)
    return out.reshape(a.shape)


@jit
def _log_softmax_backward_rows(y, grad, out):
    n, m = y.shape
    for i in range(n):
        total = row_sum(grad[i], m)
        for j in range(m):
            out[i, j] = grad[i, j] - shifted_exp(y[i, j]) * total


# 1.9x on (3072, 64) float32, 2-3.6x float64
def log_softmax_backward(y: np.ndarray, grad: np.ndarray, axis: int) -> np.ndarray:
    """grad - exp(y) * sum(grad) along `axis` (see the reference)."""
    if not (_last_axis_rows(y, axis) and compiled(y, grad)):
        return reference.log_softmax_backward(y, grad, axis)
    y2, g2 = _as_rows(y), _as_rows(grad)
    out = np.empty_like(y2)
    _over_rows(_log_softmax_backward_rows, y2, g2, out)
    return out.reshape(y.shape)


@jit
def _cross_entropy_rows(x, target, target_weight, kept, class_weight, label_smoothing,
                        smooth, w_sum, gradient, loss, values):
    n, c = x.shape
    zero = x.dtype.type(0)
    picked_share = x.dtype.type(1) - label_smoothing    # (1 - s): the target's coefficient
    for i in range(n):
        xi = x[i]
        ei = values[i] if gradient else values[0]
        shift = row_max(xi, c)
        if np.isfinite(shift):
            for j in range(c):
                ei[j] = shifted_exp(xi[j] - shift)
        else:               # no finite maximum: shift by 0, as the reference (exp(inf) = inf)
            shift = zero
            for j in range(c):
                ei[j] = math.exp(xi[j])
        total = row_sum(ei, c)
        log_total = np.log(total)
        w_t = target_weight[i]
        t = target[i]
        loss_i = -picked_share * w_t * ((xi[t] - shift) - log_total)
        if label_smoothing != 0:
            smoothed = zero         # sum_c w_c (x_c - shift)
            for j in range(c):
                smoothed += (xi[j] - shift) if class_weight is None else \
                    (xi[j] - shift) * class_weight[j]
            loss_i -= smooth * kept[i] * (smoothed - w_sum * log_total)
        loss[i] = loss_i
        if gradient:
            factor = (picked_share * w_t + smooth * w_sum * kept[i]) / total
            for j in range(c):
                ei[j] = ei[j] * factor
            ei[t] -= picked_share * w_t
            if label_smoothing != 0:
                s_kept = smooth * kept[i]
                for j in range(c):
                    ei[j] -= s_kept if class_weight is None else s_kept * class_weight[j]


# 2.0-2.3x on (768, 65) float32 with the gradient (label smoothing or not), 3.2x float64
def cross_entropy(x: np.ndarray, target: np.ndarray, target_weight: np.ndarray,
                  kept: np.ndarray, class_weight, label_smoothing: float,
                  gradient: bool) -> tuple:
    """Per-sample cross-entropy of (N, C) logits and its gradient (see the reference)."""
    if x.ndim != 2 or x.size == 0 or not compiled(x, target_weight, class_weight):
        return reference.cross_entropy(x, target, target_weight, kept, class_weight,
                                       label_smoothing, gradient)
    x = np.ascontiguousarray(x)
    scalar = x.dtype.type
    w_sum = x.shape[1] if class_weight is None else class_weight.sum()
    loss = np.empty(x.shape[0], x.dtype)
    values = np.empty_like(x) if gradient else np.empty((1, x.shape[1]), x.dtype)
    kept = kept.astype(x.dtype)
    args = (scalar(label_smoothing), scalar(label_smoothing / x.shape[1]), scalar(w_sum),
            gradient)

    def block(x, target, target_weight, kept, loss, values):
        _cross_entropy_rows(x, target, target_weight, kept, class_weight, *args, loss,
                            values)

    if gradient:
        _over_rows(block, x, target, target_weight, kept, loss, values)
    else:       # one scratch row for the exponentials: no threads
        block(x, target, target_weight, kept, loss, values)
    return loss, (values if gradient else None)
