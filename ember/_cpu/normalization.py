"""Normalisation kernels on NumPy arrays: the reference implementation of the
`normalization` kernel family (ember/_cpu/numba/normalization.py compiles the same
functions).

Layer norm works on rows: `x` is a (rows, n) C-contiguous float32 or float64 array
(callers reshape the normalised trailing dimensions into n and compute 16-bit floats
in float32), each row normalised by its own mean and biased variance. `weight` and
`bias` are (n,) arrays of x's dtype or None. Statistics are kept as `mean` and
`rstd` = 1 / sqrt(var + eps), (rows,) arrays of x's dtype, as torch's native_layer_norm
returns them.
"""
from __future__ import annotations

import numpy as np


def layer_norm(x: np.ndarray, weight, bias, eps: float):
    """(y, mean, rstd): y = (x - mean) * rstd * weight + bias, row by row (empty rows
    have NaN statistics)."""
    n = x.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=1)
        mean /= n
        y = x - mean[:, None]
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
