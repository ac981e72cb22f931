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

from .. import buffers
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


def _as_rows(a: np.ndarray) -> np.ndarray:
    """a as C-contiguous (rows, last-axis length)."""
    return np.ascontiguousarray(a).reshape(-1, a.shape[-1])


def _on_rows(kernel, fallback, axis: int, *arrays) -> np.ndarray:
    """kernel(*rows of arrays, out) when the arrays suit it (one compiled dtype, a non-empty
    last axis as `axis`), else fallback(*arrays, axis); a new array of arrays[0]'s shape."""
    first = arrays[0]
    if not (compiled(*arrays) and first.ndim > 0 and first.size > 0
            and axis in (-1, first.ndim - 1)):
        return fallback(*arrays, axis)
    rows = [_as_rows(a) for a in arrays]
    out = np.empty_like(rows[0])
    _over_rows(kernel, *rows, out)
    return out.reshape(first.shape)


@jit
def _softmax_rows(x, log, out):
    """softmax (log False) or log_softmax (log True) of each row of x into out."""
    n, m = x.shape
    for i in range(n):
        shift = row_max(x[i], m)
        for j in range(m):
            out[i, j] = shifted_exp(x[i, j] - shift)
        total = row_sum(out[i], m)
        if log:
            log_total = np.log(total)
            for j in range(m):
                out[i, j] = (x[i, j] - shift) - log_total
        else:
            for j in range(m):
                out[i, j] = out[i, j] / total


# 1.9x on (3072, 64) float32, 2.4x float64
def softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """exp(a) / sum(exp(a)) along `axis` (see the reference)."""
    return _on_rows(lambda x, out: _softmax_rows(x, False, out), reference.softmax, axis, a)


# 2.0x on (3072, 64) float32, 2.4x float64
def log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """a - log(sum(exp(a))) along `axis` (see the reference)."""
    return _on_rows(lambda x, out: _softmax_rows(x, True, out), reference.log_softmax, axis, a)


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
    return _on_rows(_log_softmax_backward_rows, reference.log_softmax_backward, axis, y, grad)


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
    values = buffers.empty(x.shape, x.dtype) if gradient else np.empty((1, x.shape[1]), x.dtype)
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
