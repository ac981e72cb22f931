"""Kernel family `softmax`: softmax and log_softmax forward and backward along one axis,
and the row pass of cross-entropy with class-index targets (NumPy reference).

The compiled twin (ember/_cpu/numba/softmax.py) does each in one pass over the rows; the
functions here define what every one computes.
"""
from __future__ import annotations

import functools

import numpy as np

from . import buffers
from .parallel import parallel_for, split, threads
from .tuning import MIN_PARALLEL_VALUES


def _along(fn, a: np.ndarray, axis: int) -> np.ndarray:
    """Run a reduction-based kernel on `axis`, treating a 0-d array as one element."""
    if a.ndim == 0:
        return fn(a.reshape(1), 0).reshape(())
    if a.size == 0:
        return a.copy()
    return fn(a, axis)


@functools.lru_cache(maxsize=16)
def _ones(length: int, dtype) -> np.ndarray:
    ones = np.ones(length, dtype)
    ones.flags.writeable = False
    return ones


def _last(a: np.ndarray, axis: int) -> bool:
    """Whether `axis` is a's last one and BLAS can reduce over it (float32/float64)."""
    return axis in (-1, a.ndim - 1) and a.dtype in (np.float32, np.float64)


def row_sums(a: np.ndarray, axis: int) -> np.ndarray:
    """a.sum(axis, keepdims=True); over the last axis as a matrix-vector product with
    ones (BLAS: 4-5x faster than NumPy's reduction over rows of 64 values)."""
    if _last(a, axis):
        return np.matmul(a, _ones(a.shape[-1], a.dtype))[..., None]
    return a.sum(axis=axis, keepdims=True)


def row_dots(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    """(a * b).sum(axis, keepdims=True), without the full-size product over the last axis
    (einsum: 3x faster)."""
    if _last(a, axis):
        return np.einsum("...i,...i->...", a, b)[..., None]
    return (a * b).sum(axis=axis, keepdims=True)


def _softmax(a: np.ndarray, axis: int) -> np.ndarray:
    e = a - a.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= row_sums(e, axis)
    return e


def _log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    shifted = a - a.max(axis=axis, keepdims=True)
    log_total = np.log(row_sums(np.exp(shifted), axis))
    shifted -= log_total
    return shifted


def softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """exp(a) / sum(exp(a)) along `axis` (shifted by the maximum first), as a new array of
    a's shape and dtype; a row holding NaN or +inf gives NaN, as in torch."""
    with np.errstate(invalid="ignore"):
        return _along(_softmax, a, axis)


def log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    """a - log(sum(exp(a))) along `axis`, computed stably, as a new array."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _along(_log_softmax, a, axis)


def softmax_backward(y: np.ndarray, grad: np.ndarray, axis: int) -> np.ndarray:
    """The input gradient of softmax from its output y: y * (grad - sum(grad * y)) along
    `axis`, a new array (y and grad have one shape)."""
    out = grad - row_dots(grad, y, axis)
    out *= y
    return out


def log_softmax_backward(y: np.ndarray, grad: np.ndarray, axis: int) -> np.ndarray:
    """The input gradient of log_softmax from its output y: grad - exp(y) * sum(grad)
    along `axis`, a new array."""
    out = np.exp(y)
    out *= row_sums(grad, axis)
    np.subtract(grad, out, out=out)
    return out


def row_shift(x: np.ndarray) -> np.ndarray:
    """Each sample's maximum over the classes (axis 1 of x), kept as (N, 1, ...), or 0
    where it is not finite: subtracted before exp so that the largest term is exp(0)."""
    if x.size == 0:
        return np.zeros_like(x[:, :1])
    shift = x.max(axis=1, keepdims=True)
    return np.where(np.isfinite(shift), shift, 0)


def at_targets(a: np.ndarray, target: np.ndarray) -> np.ndarray:
    """a[n, target[n], ...] for every sample (and position)."""
    if a.ndim == 2:
        return a[np.arange(a.shape[0]), target]
    return np.take_along_axis(a, target[:, None], 1)[:, 0]


def _add_at_targets(a: np.ndarray, target: np.ndarray, values: np.ndarray) -> None:
    """a[n, target[n], ...] += values, in place."""
    if a.ndim == 2:
        a[np.arange(a.shape[0]), target] += values
    else:
        index = target[:, None]
        np.put_along_axis(a, index, np.take_along_axis(a, index, 1) + values[:, None], 1)


def cross_entropy(x: np.ndarray, target: np.ndarray, target_weight: np.ndarray,
                  kept: np.ndarray, class_weight, label_smoothing: float,
                  gradient: bool) -> tuple:
    """Cross-entropy of logits x (N, C, d1, ...) with class-index targets, per sample.

    target (N, d1, ...) int64 holds valid class indices (ignored samples any valid one);
    target_weight is w[target] (0 where the sample is ignored), kept is False where it is
    ignored; class_weight is the (C,) weight or None (all ones). With s = label_smoothing,
    every loss is -sum_c q[n, c] log_softmax(x)[n, c] with
    q = (1 - s) target_weight onehot(target) + s / C * class_weight * kept.

    Returns (loss, d_logits): the per-sample loss (N, d1, ...) and, when `gradient`, the
    derivative of the summed loss by x, softmax(x) * sum_c q - q (None otherwise); both in
    x's dtype. Samples are done in blocks spread over the threads.
    """
    n, n_classes = x.shape[:2]
    smooth = label_smoothing / n_classes
    w_b = 1 if class_weight is None else class_weight.reshape((1, -1) + (1,) * (x.ndim - 2))
    w_sum = n_classes if class_weight is None else float(class_weight.sum())
    q_sum = (1 - label_smoothing) * target_weight
    if label_smoothing:
        q_sum = q_sum + smooth * w_sum * kept
    values = buffers.empty_like(x)
    loss = np.empty(target.shape, x.dtype)

    @np.errstate(divide="ignore", invalid="ignore")     # rows without a finite logit
    def block(part):
        z = np.subtract(x[part], row_shift(x[part]), out=values[part])
        picked = at_targets(z, target[part])
        smoothed = (z * w_b).sum(axis=1) if label_smoothing else None
        e = np.exp(z, out=z)
        total = e.sum(axis=1, keepdims=True)
        log_total = np.log(total[:, 0])
        loss[part] = -(1 - label_smoothing) * target_weight[part] * (picked - log_total)
        if label_smoothing:
            # the smoothing term: -smooth * sum_c w_c * logp[n, c] (for kept samples)
            loss[part] -= smooth * kept[part] * (smoothed - w_sum * log_total)
        if gradient:
            np.multiply(e, q_sum[part].reshape(total.shape) / total, out=e)
            _add_at_targets(e, target[part], -(1 - label_smoothing) * target_weight[part])
            if label_smoothing:
                e -= smooth * w_b * kept[part][:, None]

    parts = 2 * threads() if x.size >= MIN_PARALLEL_VALUES else 1
    parallel_for(split(n, parts), block, x.size)
    return loss, (values if gradient else None)
