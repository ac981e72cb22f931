"""Convolutions (1-d, 2-d, 3-d, transposed) as im2col + one GEMM per group.

Layout: the input is turned to (C, *spatial, N), batch innermost, so that each kernel
offset's window is one strided slice (with long contiguous rows) copied into a column
buffer of shape (C, K, *out, N) (K = kernel positions). The product with the weight, viewed as
(groups, O/groups, C/groups * K), gives every output at once. Backward runs the
same machinery in reverse: the input gradient is built by slice-adds of the column
gradient (col2im), the weight gradient is one GEMM against the columns. The column copies
are the kernel family `conv` (ember/_cpu/conv.py, with a compiled twin for 2-d).

Three primitives close the set under differentiation, so double backward works:
    Conv(x, w)            y = x (*) w
    ConvInputGrad(g, w)   dL/dx given dL/dy = g     (also: the transposed convolution)
    ConvWeightGrad(x, g)  dL/dw given dL/dy = g
"""
from __future__ import annotations

import math
from contextlib import contextmanager, nullcontext

import numpy as np

from ..._meta import MetaUnsupported
from ... import _dtype
from ..._cpu import buffers, conv as conv_kernels, kernels
from ..._cpu.transpose import move_first_axes_last, move_last_axes_first
from ..._memory_format import as_format, format_of
from ..._cpu.scratch import ThreadScratch
from ..._cpu.tuning import CACHE_COLUMNS_BYTES, THIN_PRODUCT_SLICE
from ..._tensor import Tensor
from ...autograd.function import Function
from ...amp.policy import LOWER, autocast_op
from ..._modes import current as modes
from ..._recorded_call import replayed_call
from ...ops.padding import pad
from . import winograd
from ._bias_grad import BiasGrad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY
# Column buffers that do not outlive the call (recomputed columns, column gradients)
# are lent from one reusable buffer per thread; see _cpu/scratch.py for why.
_COLUMNS = ThreadScratch()


class Geometry:
    """Stride, dilation, explicit (before, after) padding per spatial dim, groups."""

    __slots__ = ("stride", "dilation", "pads", "groups")

    def __init__(self, stride, dilation, pads, groups):
        self.stride, self.dilation, self.pads, self.groups = stride, dilation, pads, groups

    def out_size(self, in_size, kernel) -> tuple:
        return conv_kernels.out_size(in_size, kernel, self.stride, self.dilation, self.pads)

    def windows(self, kernel, out) -> tuple:
        """For each kernel offset: the slice of the padded input it reads."""
        return conv_kernels.windows(tuple(kernel), tuple(out), tuple(self.stride),
                                    tuple(self.dilation))


def _compute_dtype(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) if a.dtype in _LOW_PRECISION else a


@contextmanager
def _columns(x: np.ndarray, kernel, geo: Geometry, temporary: bool):
    """A context giving (columns, out) for the padded input x (N, C, *spatial):
    `temporary` columns are lent from the thread's scratch buffer for the block, others
    are a new array that may outlive it."""
    out = geo.out_size(x.shape[2:], kernel)
    shape = (x.shape[1], math.prod(kernel)) + out + (x.shape[0],)
    buffer = _COLUMNS.lend(shape, x.dtype) if temporary else \
        nullcontext(buffers.empty(shape, x.dtype))
    with buffer as cols:
        _im2col(x, kernel, geo, cols)
        yield cols, out


def _im2col(x: np.ndarray, kernel, geo: Geometry, cols: np.ndarray) -> None:
    """Fill cols (C, K, *out, N) with the columns of x (N, C, *spatial)."""
    kernels.family("conv").im2col(x, kernel, geo.stride, geo.dilation, geo.pads, cols)


def _col2im(cols: np.ndarray, x_shape, kernel, geo: Geometry) -> np.ndarray:
    """Sum columns (C, K, *out, N) back into an input-shaped (N, C, *spatial) array."""
    return kernels.family("conv").col2im(cols, x_shape, kernel, geo.stride, geo.dilation,
                                         geo.pads)


def _grouped(cols: np.ndarray, groups: int) -> np.ndarray:
    """Columns (C, K, *out, N) as (groups, C/groups * K, prod(out) * N)."""
    c, k = cols.shape[:2]
    return cols.reshape(groups, (c // groups) * k, -1)


def _channels_first(g: np.ndarray, groups: int) -> np.ndarray:
    """An (N, O, *out) gradient as (groups, O/groups, prod(out) * N), the columns' order."""
    return move_first_axes_last(g).reshape(groups, g.shape[1] // groups, -1)


def _to_batch_first(y: np.ndarray, n: int, out, bias: np.ndarray | None) -> np.ndarray:
    """(groups, O/groups, prod(out) * N) -> contiguous (N, O, *out), plus the bias (added
    before the transpose, along the long rows of y: 3x faster than across (N, O, *out))."""
    o = y.shape[0] * y.shape[1]
    rows = y.reshape(o, -1)
    if bias is not None:
        rows += bias.astype(y.dtype, copy=False).reshape(o, 1)
    return move_last_axes_first(rows.reshape((o,) + tuple(out) + (n,)))


def conv_forward(x: np.ndarray, w: np.ndarray, geo: Geometry, keep_columns: bool,
                 bias: np.ndarray | None = None):
    """The output, and the columns if `keep_columns` (else None: they were temporary;
    Winograd's convolutions keep nothing)."""
    if winograd.applies(x.shape, w.shape, geo):
        return winograd.forward(x, w, geo, bias), None
    kernel = w.shape[2:]
    w_g = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    with _columns(x, kernel, geo, temporary=not keep_columns) as (cols, out):
        y = buffers.matmul(w_g, _grouped(cols, geo.groups))
    return _to_batch_first(y, x.shape[0], out, bias), cols if keep_columns else None


def conv_input_grad(g: np.ndarray, w: np.ndarray, geo: Geometry, x_shape,
                    g_cf: np.ndarray | None = None) -> np.ndarray:
    """dL/dx; `g_cf` is g already in the columns' order, if the caller has it."""
    if winograd.applies(x_shape, w.shape, geo):
        return winograd.backward(None, g, w, geo, x_shape, w.shape, True, False)[0]
    kernel = w.shape[2:]
    w_g = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    if g_cf is None:
        g_cf = _channels_first(g, geo.groups)
    with _COLUMNS.lend((geo.groups, w_g.shape[2], g_cf.shape[2]), g_cf.dtype) as cols:
        np.matmul(w_g.transpose(0, 2, 1), g_cf, out=cols)
        c = x_shape[1]
        cols = cols.reshape((c, math.prod(kernel)) + g.shape[2:] + (x_shape[0],))
        return _col2im(cols, x_shape, kernel, geo)


def conv_weight_grad(x: np.ndarray, g: np.ndarray, geo: Geometry, w_shape,
                     cols: np.ndarray | None = None,
                     g_cf: np.ndarray | None = None) -> np.ndarray:
    """dL/dw; `cols` (the forward's columns) and `g_cf` save recomputing them."""
    if winograd.applies(x.shape, w_shape, geo):
        return winograd.backward(x, g, None, geo, x.shape, w_shape, False, True)[1]
    if g_cf is None:
        g_cf = _channels_first(g, geo.groups)
    kept = nullcontext((cols, None)) if cols is not None else \
        _columns(x, w_shape[2:], geo, temporary=True)
    with kept as (cols, _):
        # columns @ g^T, then a transpose of the small result: OpenBLAS runs this operand
        # order 1.1-1.7x faster than g @ columns^T on convolution shapes.
        gw_t = _thin_product(_grouped(cols, geo.groups), g_cf.transpose(0, 2, 1))
    return np.ascontiguousarray(gw_t.transpose(0, 2, 1)).reshape(w_shape)


def _thin_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for stacks (G, M, K) @ (G, K, N). With few rows in a and a long K (the
    weight gradient of a first layer: 25 x 10 values, each a sum over 37k positions),
    OpenBLAS runs 1.5-3.5x slower than on the same product cut into a stack of
    1024-long slices of K, whose partial results are then summed (measured: M <= 16,
    or M <= 32 with M N < 1024; larger products are as fast or faster whole)."""
    groups, rows, inner = a.shape
    cols = b.shape[-1]
    thin = rows <= 16 or rows <= 32 and rows * cols < 1024      # measured, see above
    if not thin or inner < 4 * THIN_PRODUCT_SLICE:
        return np.matmul(a, b)
    slices = inner // THIN_PRODUCT_SLICE
    whole = slices * THIN_PRODUCT_SLICE
    a_slices = a[..., :whole].reshape(groups, rows, slices, THIN_PRODUCT_SLICE).transpose(0, 2, 1, 3)
    b_slices = b[:, :whole].reshape(groups, slices, THIN_PRODUCT_SLICE, cols)
    result = np.matmul(a_slices, b_slices).sum(axis=1)
    if whole < inner:
        result += np.matmul(a[..., whole:], b[:, whole:])
    return result


def _columns_bytes(x: np.ndarray, w: np.ndarray, geo: Geometry) -> int:
    """Size of the float32 (or float64) columns of convolving x with w."""
    itemsize = max(np.dtype(np.float32).itemsize, x.dtype.itemsize)
    out = geo.out_size(x.shape[2:], w.shape[2:])
    return x.shape[0] * x.shape[1] * math.prod(w.shape[2:]) * math.prod(out) * itemsize


@replayed_call
def _winograd_grads(x: Tensor, grad: Tensor, w: Tensor, geo, need_x: bool, need_w: bool):
    """A Winograd convolution's input and weight gradients (each None unless needed),
    computed in one pass over the batch."""
    arrays = (_compute_dtype(t.numpy(force=True)) for t in (x, grad, w))
    gx, gw = winograd.backward(*arrays, geo, tuple(x.shape), tuple(w.shape), need_x, need_w)
    return _as_tensor(gx, x.dtype), _as_tensor(gw, w.dtype)


@replayed_call
def _grad_channels_first(grad: Tensor, groups: int) -> np.ndarray:
    """grad in the columns' order, which both convolution gradients read."""
    return _channels_first(_compute_dtype(grad.numpy(force=True)), groups)


class Conv(Function):
    backward_name = "ConvolutionBackward0"
    saved_names = ("input", "weight")
    holomorphic = True  # bilinear: complex gradients by the engine's conjugation

    @staticmethod
    def forward(ctx, x, w, b, geo):
        if type(x) is not np.ndarray:
            raise MetaUnsupported("ember's convolution kernels compute on data")
        # Keep the columns for the weight gradient when recording and they are small enough.
        keep = ctx.needs_input_grad[1:2] == (True,) and \
            _columns_bytes(x, w, geo) <= CACHE_COLUMNS_BYTES
        y, ctx.cols = conv_forward(_compute_dtype(x), _compute_dtype(w), geo, keep, b)
        ctx.save_for_backward(x, w)
        ctx.geo = geo
        return as_format(y.astype(x.dtype, copy=False), format_of(x, w))

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx._unpacked_saved
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        gb = BiasGrad.apply(grad, 1) if need_b else None
        if not modes().grad_enabled and winograd.applies(x.shape, w.shape, ctx.geo):
            # No graph to record: both gradients in one pass over the batch.
            return _winograd_grads(x, grad, w, ctx.geo, need_x, need_w) + (gb, None)
        # Both gradients read grad in the columns' order: transpose it once for the two.
        g_cf = _grad_channels_first(grad, ctx.geo.groups) if need_x and need_w else None
        gx = ConvInputGrad.apply(grad, w, ctx.geo, tuple(x.shape), g_cf) if need_x else None
        gw = ConvWeightGrad.apply(x, grad, ctx.geo, tuple(w.shape), ctx.cols, g_cf) \
            if need_w else None
        ctx.cols = None
        return gx, gw, gb, None


def _as_tensor(array: np.ndarray | None, dtype) -> Tensor | None:
    return None if array is None else Tensor._wrap(array.astype(dtype.numpy, copy=False))


class ConvInputGrad(Function):
    """dL/dx of a convolution; with x_shape chosen freely it is the transposed convolution."""
    backward_name = "ConvolutionBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, g, w, geo, x_shape, g_cf=None):
        ctx.save_for_backward(g, w)
        ctx.geo = geo
        gx = conv_input_grad(_compute_dtype(g), _compute_dtype(w), geo, x_shape, g_cf)
        return as_format(gx.astype(g.dtype, copy=False), format_of(g, w))

    @staticmethod
    def backward(ctx, h):
        g, w = ctx._unpacked_saved
        need_g, need_w = ctx.needs_input_grad[:2]
        gg = Conv.apply(h, w, None, ctx.geo) if need_g else None
        gw = ConvWeightGrad.apply(h, g, ctx.geo, tuple(w.shape), None) if need_w else None
        return gg, gw, None, None, None


class ConvWeightGrad(Function):
    backward_name = "ConvolutionBackwardBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, x, g, geo, w_shape, cols, g_cf=None):
        ctx.save_for_backward(x, g)
        ctx.geo = geo
        gw = conv_weight_grad(_compute_dtype(x), _compute_dtype(g), geo, w_shape, cols, g_cf)
        return gw.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, h):
        x, g = ctx._unpacked_saved
        need_x, need_g = ctx.needs_input_grad[:2]
        gx = ConvInputGrad.apply(g, h, ctx.geo, tuple(x.shape)) if need_x else None
        gg = Conv.apply(x, h, None, ctx.geo) if need_g else None
        return gx, gg, None, None, None, None


# ---------------------------------------------------------------- argument handling
def _tuple(value, n: int, name: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return value


def _check_input(input: Tensor, weight: Tensor, bias: Tensor | None, n: int, groups: int,
                 name: str) -> bool:
    """Validate shapes with torch's messages; returns whether input was unbatched."""
    dims = input.ndim
    if dims not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.ndim != n + 2:
        raise RuntimeError("weight should have at least three dimensions")
    hint = (" Hint: the input and the layer's parameters have different dtypes; convert one "
            "side, e.g. model.float() or input.float().")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp_name}) and bias type "
                           f"({bias.dtype.cpp_name}) should be the same." + hint)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {_short(input)} but found {_short(weight)}."
                           + hint)
    return dims == n + 1


def _short(t: Tensor) -> str:
    return t.dtype.scalar_name


def _resolve_padding(padding, kernel, dilation, stride, n: int):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            pads = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise ValueError(f"Invalid padding string '{padding}', should be one of "
                         "{'valid', 'same'}")
    return tuple((p, p) for p in _tuple(padding, n, "padding"))


def _convnd(n: int, name: str, input, weight, bias, stride, padding, dilation, groups):
    unbatched = _check_input(input, weight, bias, n, groups, name)
    if unbatched:
        input = input.unsqueeze(0)
    stride = _tuple(stride, n, "stride")
    dilation = _tuple(dilation, n, "dilation")
    kernel = tuple(weight.shape[2:])
    c = input.shape[1]
    if c != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {c} "
            "channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError("Given groups={}, expected weight to be divisible by {} at dimension "
                           "0, but got weight of size {} instead".format(
                               groups, groups, list(weight.shape)))
    geo = Geometry(stride, dilation, _resolve_padding(padding, kernel, dilation, stride, n),
                   groups)
    out = geo.out_size(tuple(input.shape[2:]), kernel)
    if any(o <= 0 for o in out):
        padded = [s + lo + hi for s, (lo, hi) in zip(input.shape[2:], geo.pads)]
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(str(d * (k - 1) + 1) for k, d in zip(kernel, dilation))}"
                           f"). Kernel size can't be greater than actual input size")
    y = Conv.apply(input, weight, bias, geo)
    return y.squeeze(0) if unbatched else y


@autocast_op(LOWER)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """1-D convolution (cross-correlation) of input (N, C_in, L) or (C_in, L) with weight (C_out,
    C_in / groups, k), plus bias (C_out,); padding may be an int, a tuple, 'valid' or 'same'."""
    return _convnd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


@autocast_op(LOWER)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """2-D convolution of input (N, C_in, H, W) or (C_in, H, W) with weight (C_out, C_in / groups,
    kH, kW), plus bias (C_out,); padding may be an int, a tuple, 'valid' or 'same'."""
    return _convnd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


@autocast_op(LOWER)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """3-D convolution of input (N, C_in, D, H, W) or (C_in, D, H, W) with weight (C_out, C_in /
    groups, kD, kH, kW), plus bias (C_out,)."""
    return _convnd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(n: int, input, weight, bias, stride, padding, output_padding, groups,
                      dilation):
    unbatched = input.ndim == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _tuple(stride, n, "stride")
    dilation = _tuple(dilation, n, "dilation")
    pads = _tuple(padding, n, "padding")
    out_pad = _tuple(output_padding, n, "output_padding")
    for op, s, d in zip(out_pad, stride, dilation):
        if op >= max(s, d):
            raise RuntimeError("output padding must be smaller than either stride or dilation")
    kernel = tuple(weight.shape[2:])
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.shape[0]} channels, but "
                           f"got {input.shape[1]} channels instead")
    spatial = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
                    zip(input.shape[2:], stride, pads, dilation, kernel, out_pad))
    # The transposed convolution is the input-gradient of the convolution whose input has
    # this shape. When output_padding reaches the stride (it may, up to the dilation), that
    # convolution has more output positions than the input here: they get zeros, so the
    # gradients' shapes line up too.
    geo = Geometry(stride, dilation, tuple((p, p) for p in pads), groups)
    x_shape = (input.shape[0], weight.shape[1] * groups) + spatial
    extra = [o - i for o, i in zip(geo.out_size(spatial, kernel), input.shape[2:])]
    if any(extra):
        input = pad(input, [side for e in reversed(extra) for side in (0, e)])
    y = ConvInputGrad.apply(input, weight, geo, x_shape)
    if bias is not None:
        y = y + bias.reshape((-1,) + (1,) * n)
    return y.squeeze(0) if unbatched else y


@autocast_op(LOWER)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """1-D transposed convolution (the gradient of conv1d with respect to its input) of input (N,
    C_in, L) with weight (C_in, C_out / groups, k); output_padding adds to one side of the output.
    """
    return _conv_transposend(1, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


@autocast_op(LOWER)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """2-D transposed convolution ("deconvolution") of input (N, C_in, H, W) with weight (C_in,
    C_out / groups, kH, kW)."""
    return _conv_transposend(2, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


@autocast_op(LOWER)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """3-D transposed convolution of input (N, C_in, D, H, W) with weight (C_in, C_out / groups, kD,
    kH, kW)."""
    return _conv_transposend(3, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)
