"""Normalisation kernels on NumPy arrays: the reference implementation of the
`normalization` kernel family (ember/_cpu/numba/normalization.py compiles the same
functions). Arrays are float32 or float64 (callers compute 16-bit floats in float32);
`weight` and `bias` are 1-d arrays of x's dtype, or None.

Layer norm works on rows: `x` is (rows, n), the normalised trailing dimensions
flattened into n, each row normalised by its own mean and biased variance; weight and
bias are (n,). Batch norm works on channels: `x` is (N, C, L), the spatial dimensions
flattened into L, each channel normalised over its N * L values; weight and bias are
(C,). The statistics come back as `mean` and `rstd` = 1 / sqrt(var + eps) (batch norm
also gives the biased `var`, for running statistics), arrays of x's dtype with one
value per row or channel, as torch's native_layer_norm / native_batch_norm keep them.
"""
from __future__ import annotations

import numpy as np

from . import buffers


def layer_norm(x: np.ndarray, weight, bias, eps: float):
    """(y, mean, rstd): y = (x - mean) * rstd * weight + bias, row by row (empty rows
    have NaN statistics)."""
    n = x.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=1)
        mean /= n
        y = np.subtract(x, mean[:, None], out=buffers.empty_like(x))
        rstd = np.square(y).sum(axis=1)
        rstd /= n
        rstd += eps
        np.sqrt(rstd, out=rstd)
        np.reciprocal(rstd, out=rstd)
    y *= rstd[:, None]
    if weight is not None:
        y *= weight
    if bias is not None:
        y += bias
    return y, mean, rstd


def layer_norm_backward(grad: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        weight, output_mask: tuple):
    """(dx, dweight, dbias) for the upstream `grad` (rows, n); an entry is None where
    `output_mask` (three bools, as torch's native_layer_norm_backward takes) is false.

    With xhat = (x - mean) * rstd and gw = grad * weight:
    dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), means over each row;
    dweight = sum over rows of grad * xhat; dbias = sum over rows of grad."""
    want_x, want_weight, want_bias = output_mask
    xhat = x - mean[:, None]
    xhat *= rstd[:, None]
    dx = dweight = dbias = None
    if want_x:
        n = x.shape[1]
        gw = grad * weight if weight is not None else grad.copy()
        mean_gw = gw.sum(axis=1, keepdims=True) / max(n, 1)
        mean_gw_xhat = np.multiply(gw, xhat).sum(axis=1, keepdims=True) / max(n, 1)
        gw -= mean_gw
        gw -= xhat * mean_gw_xhat
        gw *= rstd[:, None]
        dx = gw
    if want_weight:
        xhat *= grad
        dweight = xhat.sum(axis=0)
    if want_bias:
        dbias = grad.sum(axis=0)
    return dx, dweight, dbias


def batch_norm(x: np.ndarray, weight, bias, eps: float):
    """(y, mean, var, rstd): y = (x - mean) * rstd * weight + bias, channel by channel."""
    count = x.shape[0] * x.shape[2]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=(0, 2))
        mean /= count
        y = np.subtract(x, mean[:, None], out=buffers.empty_like(x))
        var = np.square(y).sum(axis=(0, 2))
        var /= count
        rstd = np.sqrt(var + eps)
        np.reciprocal(rstd, out=rstd)
    y *= rstd[:, None]
    if weight is not None:
        y *= weight[:, None]
    if bias is not None:
        y += bias[:, None]
    return y, mean, var, rstd


def batch_norm_backward(grad: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        weight, output_mask: tuple):
    """(dx, dweight, dbias) for the upstream `grad` (N, C, L), entries None where
    `output_mask` is false. With xhat = (x - mean) * rstd, per channel:
    dweight = sum(grad * xhat), dbias = sum(grad) and
    dx = rstd * weight * (grad - dbias / count - xhat * dweight / count)."""
    want_x, want_weight, want_bias = output_mask
    count = max(x.shape[0] * x.shape[2], 1)
    xhat = x - mean[:, None]
    xhat *= rstd[:, None]
    sum_g = grad.sum(axis=(0, 2))
    sum_g_xhat = np.multiply(grad, xhat).sum(axis=(0, 2))
    dx = None
    if want_x:
        xhat *= (sum_g_xhat / count)[:, None]
        dx = grad - (sum_g / count)[:, None]
        dx -= xhat
        dx *= (rstd if weight is None else rstd * weight)[:, None]
    return dx, sum_g_xhat if want_weight else None, sum_g if want_bias else None
