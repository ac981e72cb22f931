"""Kernel family `conv`: the column copies around a convolution's GEMM (NumPy reference).

A convolution of x (N, C, *spatial) is computed as one GEMM against "columns" of shape
(C, K, *out, N), K being the kernel's positions: column (c, k, *o, n) holds the input
value that kernel offset k reads for output position o of sample n (0 where it reads
padding). The batch is the innermost axis, so each kernel offset's window is one strided
slice of the input turned to (C, *spatial, N), with long contiguous rows.

    im2col(x, kernel, stride, dilation, pads, cols)   fill the columns
    col2im(cols, x_shape, kernel, stride, dilation, pads)
                                                      sum columns back into an input-shaped
                                                      array (the input gradient's last step)

`pads` holds (before, after) padding per spatial dim. The compiled twin
(ember/_cpu/numba/conv.py) does the layout change and the copies in one pass.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from .transpose import move_first_axes_last, move_last_axes_first


def out_size(in_size, kernel, stride, dilation, pads) -> tuple:
    """The output's spatial size."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, k, s, d, (lo, hi) in
                 zip(in_size, kernel, stride, dilation, pads))


@functools.lru_cache(maxsize=256)
def windows(kernel: tuple, out: tuple, stride: tuple, dilation: tuple) -> tuple:
    """For each kernel offset, the slices of the padded input it reads (computed once per
    shape: a training loop asks for the same few shapes at every step)."""
    return tuple(tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                       for o, d, n, s in zip(offset, dilation, out, stride))
                 for offset in itertools.product(*(range(k) for k in kernel)))


def im2col(x: np.ndarray, kernel, stride, dilation, pads, cols: np.ndarray) -> None:
    """Fill cols (C, K, *out, N) with the columns of x (N, C, *spatial)."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    out = cols.shape[2:-1]
    x_t = move_first_axes_last(x)
    if any(lo or hi for lo, hi in pads):
        padded = np.zeros(_padded_shape(c, spatial, pads, n), dtype=x.dtype)
        padded[_inner(spatial, pads)] = x_t
        x_t = padded
    for k, window in enumerate(windows(tuple(kernel), tuple(out), tuple(stride),
                                       tuple(dilation))):
        cols[:, k] = x_t[(slice(None),) + window + (slice(None),)]


def col2im(cols: np.ndarray, x_shape, kernel, stride, dilation, pads) -> np.ndarray:
    """The (N, C, *spatial) array that sums every column (C, K, *out, N) into the input
    position it was copied from (positions in the padding are dropped)."""
    n, c = x_shape[:2]
    spatial = x_shape[2:]
    out = cols.shape[2:-1]
    padded = np.zeros(_padded_shape(c, spatial, pads, n), dtype=cols.dtype)
    for k, window in enumerate(windows(tuple(kernel), tuple(out), tuple(stride),
                                       tuple(dilation))):
        padded[(slice(None),) + window + (slice(None),)] += cols[:, k]
    return move_last_axes_first(padded[_inner(spatial, pads)])


def _padded_shape(c: int, spatial, pads, n: int) -> tuple:
    return (c,) + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads)) + (n,)


def _inner(spatial, pads) -> tuple:
    """The index of the unpadded region inside a padded (C, *spatial, N) array."""
    return (slice(None),) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                  zip(spatial, pads)) + (slice(None),)
