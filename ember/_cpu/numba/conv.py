"""Compiled twin of ember/_cpu/conv.py for 2-d convolutions: the layout change (batch to
the innermost axis), the padding and the column copies in one pass per channel, where
the reference makes a transposed copy of the input, a padded copy, then one strided copy
per kernel offset. Channels are spread over the threads."""
from __future__ import annotations

import numpy as np

from .. import conv as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit

out_size = reference.out_size
windows = reference.windows


@jit
def _im2col_2d(x, kh, kw, sh, sw, dh, dw, ph, pw, cols, c0, c1):
    n, _, h, w = x.shape
    oh, ow = cols.shape[2], cols.shape[3]
    plane = np.empty((h, w, n), x.dtype)
    zero = x.dtype.type(0)
    for c in range(c0, c1):
        for b in range(n):
            for i in range(h):
                for j in range(w):
                    plane[i, j, b] = x[b, c, i, j]
        for ki in range(kh):
            for kj in range(kw):
                k = ki * kw + kj
                for oi in range(oh):
                    i = oi * sh - ph + ki * dh
                    for oj in range(ow):
                        j = oj * sw - pw + kj * dw
                        if 0 <= i < h and 0 <= j < w:
                            for b in range(n):
                                cols[c, k, oi, oj, b] = plane[i, j, b]
                        else:
                            for b in range(n):
                                cols[c, k, oi, oj, b] = zero


@jit
def _col2im_2d(cols, kh, kw, sh, sw, dh, dw, ph, pw, gx, c0, c1):
    n, _, h, w = gx.shape
    oh, ow = cols.shape[2], cols.shape[3]
    plane = np.empty((h, w, n), gx.dtype)
    for c in range(c0, c1):
        plane[:] = 0
        # Kernel offsets in the reference's order, so every sum rounds the same way.
        for ki in range(kh):
            for kj in range(kw):
                k = ki * kw + kj
                for oi in range(oh):
                    i = oi * sh - ph + ki * dh
                    if i < 0 or i >= h:
                        continue
                    for oj in range(ow):
                        j = oj * sw - pw + kj * dw
                        if 0 <= j < w:
                            for b in range(n):
                                plane[i, j, b] += cols[c, k, oi, oj, b]
        for b in range(n):
            for i in range(h):
                for j in range(w):
                    gx[b, c, i, j] = plane[i, j, b]


def _geometry(kernel, stride, dilation, pads) -> tuple:
    return (kernel[0], kernel[1], stride[0], stride[1], dilation[0], dilation[1],
            pads[0][0], pads[1][0])


def _over_channels(kernel_fn, source, target, geometry, channels: int, values: int) -> None:
    parts = min(threads(), channels) if values >= MIN_PARALLEL_VALUES else 1
    parallel_for(split(channels, parts), lambda part: kernel_fn(
        source, *geometry, target, part.start, part.stop), values)


# 1.4x on the MNIST CNN's second layer ((64, 32, 26, 26) float32, 3x3), 2.2x with stride
# 2 and padding 1 ((32, 64, 32, 32)); one thread
def im2col(x: np.ndarray, kernel, stride, dilation, pads, cols: np.ndarray) -> None:
    """Fill cols (C, K, *out, N) with the columns of x (N, C, *spatial) (see the reference)."""
    if x.ndim != 4 or not compiled(x, cols) or not cols.flags.c_contiguous:
        return reference.im2col(x, kernel, stride, dilation, pads, cols)
    _over_channels(_im2col_2d, np.ascontiguousarray(x), cols,
                   _geometry(kernel, stride, dilation, pads), x.shape[1], cols.size)


# 2.1x on the MNIST CNN's second layer's input gradient ((64, 32, 26, 26) float32, 3x3),
# 2.6x with stride 2 and padding 1 ((32, 64, 32, 32)); one thread
def col2im(cols: np.ndarray, x_shape, kernel, stride, dilation, pads) -> np.ndarray:
    """Sum columns (C, K, *out, N) back into an (N, C, *spatial) array (see the reference)."""
    if len(x_shape) != 4 or not compiled(cols):
        return reference.col2im(cols, x_shape, kernel, stride, dilation, pads)
    gx = np.empty(x_shape, cols.dtype)
    _over_channels(_col2im_2d, np.ascontiguousarray(cols), gx,
                   _geometry(kernel, stride, dilation, pads), x_shape[1], cols.size)
    return gx
