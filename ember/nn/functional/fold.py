"""unfold (im2col) and fold (col2im) over 2-d spatial inputs.

Both reuse the convolution's column machinery: unfold lays every k x k window of an
(N, C, H, W) input out as a column of an (N, C*k*k, L) array; fold sums such columns
back into an image. Each is the other's adjoint, so each is the other's backward.
"""
from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...autograd.function import Function
from .conv import Geometry, _col2im, _columns

__all__ = ["unfold", "fold"]


def _pair(value, name: str) -> tuple:
    value = (value, value) if isinstance(value, int) else tuple(value)
    if len(value) != 2:
        raise RuntimeError(f"{name} must be an int or a tuple of two ints")
    return value


def _unfold_array(x: np.ndarray, kernel, geo: Geometry) -> np.ndarray:
    with _columns(x, kernel, geo, temporary=True) as (cols, out):  # (C, K, *out, N)
        c, k, n = cols.shape[0], cols.shape[1], cols.shape[-1]
        return np.ascontiguousarray(np.moveaxis(cols, -1, 0)).reshape(n, c * k, math.prod(out))


def _fold_array(cols: np.ndarray, x_shape, kernel, geo: Geometry, out) -> np.ndarray:
    n, c = x_shape[:2]
    k = math.prod(kernel)
    as_columns = np.moveaxis(cols.reshape((n, c, k) + tuple(out)), 0, -1)  # (C, K, *out, N)
    return _col2im(as_columns, x_shape, kernel, geo)


class Im2Col(Function):
    backward_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, kernel, geo):
        ctx.args = (x.shape, kernel, geo)
        return _unfold_array(x, kernel, geo)

    @staticmethod
    def backward(ctx, grad):
        x_shape, kernel, geo = ctx.args
        return Col2Im.apply(grad, x_shape, kernel, geo), None, None


class Col2Im(Function):
    backward_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, x_shape, kernel, geo):
        ctx.args = (kernel, geo)
        out = geo.out_size(x_shape[2:], kernel)
        return _fold_array(cols, x_shape, kernel, geo, out)

    @staticmethod
    def backward(ctx, grad):
        return Im2Col.apply(grad, *ctx.args), None, None, None


def _geometry(kernel_size, dilation, padding, stride):
    kernel = _pair(kernel_size, "kernel_size")
    dilation, padding, stride = (_pair(v, name) for v, name in
                                 ((dilation, "dilation"), (padding, "padding"),
                                  (stride, "stride")))
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: "
                           f"{stride[0]} stride_width: {stride[1]}")
    return kernel, Geometry(stride, dilation, tuple((p, p) for p in padding), 1)


def _blocks(spatial, kernel, geo: Geometry) -> tuple:
    blocks = geo.out_size(spatial, kernel)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(spatial)}, kernel_size="
                           f"{kernel}, dilation={geo.dilation}, padding="
                           f"{tuple(lo for lo, _ in geo.pads)}, calculated shape of the array "
                           f"of sliding blocks as {blocks}, but its components must be at "
                           "least one.")
    return blocks


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding k x k blocks of an (N, C, H, W) input as columns: (N, C*k*k, L)."""
    if input.dim() not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    kernel, geo = _geometry(kernel_size, dilation, padding, stride)
    _blocks(tuple(x.shape[2:]), kernel, geo)
    y = Im2Col.apply(x, kernel, geo)
    return y.squeeze(0) if unbatched else y


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum (N, C*k*k, L) columns back into an (N, C, *output_size) image (col2im)."""
    if input.dim() not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    unbatched = input.dim() == 2
    cols = input.unsqueeze(0) if unbatched else input
    output_size = _pair(output_size, "output_size")
    kernel, geo = _geometry(kernel_size, dilation, padding, stride)
    k = math.prod(kernel)
    if cols.shape[1] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={cols.shape[1]} and "
                           f"kernel_size={kernel}.")
    blocks = _blocks(output_size, kernel, geo)
    if cols.shape[2] != math.prod(blocks):
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel}, dilation={geo.dilation}, "
            f"padding={tuple(lo for lo, _ in geo.pads)}, stride={geo.stride}, expected size of "
            f"input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got "
            f"input.size(2)={cols.shape[2]}.")
    x_shape = (cols.shape[0], cols.shape[1] // k) + output_size
    y = Col2Im.apply(cols, x_shape, kernel, geo)
    return y.squeeze(0) if unbatched else y
