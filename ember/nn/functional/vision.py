"""Resampling: interpolate/upsample (nearest, nearest-exact, linear family, bicubic, area)
pixel_shuffle / pixel_unshuffle and channel_shuffle.

Interpolation is separable: each spatial dim is resampled on its own. Along one dim an
output position j reads a few input positions idx_t[j] (t = taps: 1 for nearest, 2 for
linear, 4 for cubic) with weights w_t[j]. So one primitive, `Resample`, gathers
sum_t w_t * x[idx_t] along an axis; its gradient is the adjoint scatter-add,
`ResampleAdjoint`, and each is the other's backward (double backward works).
Every idx_t is non-decreasing in j, which lets the scatter use np.add.reduceat.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype
from ..._memory_format import as_format, format_of
from ..._tensor import Tensor
from ...autograd.function import Function
from ...ops._nondifferentiable import recorded
from ...ops.shape import _named
from ._window_resample import antialias_taps, plain_window, resample_uint8, window_weights
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY
_CUBIC_A = -0.75     # torch's (and OpenCV's) bicubic convolution parameter


def _along(w: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """A 1-d array shaped to broadcast along `axis` of an ndim array."""
    shape = [1] * ndim
    shape[axis] = -1
    return w.reshape(shape)


def _gather(x: np.ndarray, axis: int, taps) -> np.ndarray:
    out = None
    for idx, w in taps:
        term = np.take(x, idx, axis=axis)
        if w is not None:
            term = term * _along(w.astype(x.dtype, copy=False), axis, x.ndim)
        out = term if out is None else out + term
    return out


def _scatter(g: np.ndarray, axis: int, taps, in_size: int) -> np.ndarray:
    """The adjoint of _gather: add each output's share back onto the inputs it read."""
    moved = np.moveaxis(g, axis, 0)
    result = np.zeros((in_size,) + moved.shape[1:], dtype=g.dtype)
    for idx, w in taps:
        values = moved if w is None else moved * w.astype(g.dtype, copy=False).reshape(
            (-1,) + (1,) * (moved.ndim - 1))
        # idx is sorted, so the outputs reading input i form one contiguous run.
        present = np.unique(idx)
        if present.size:
            starts = np.searchsorted(idx, present)
            result[present] += np.add.reduceat(values, starts, axis=0)
    return np.ascontiguousarray(np.moveaxis(result, 0, axis))


def _compute(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) if a.dtype in _LOW_PRECISION else a


class Resample(Function):
    """y = sum_t w_t * x[..., idx_t, ...] along one axis."""
    backward_name = "UpsampleBackward0"

    @staticmethod
    def forward(ctx, x, axis, taps, in_size):
        ctx.args = (axis, taps, in_size)
        y = _gather(_compute(x), axis, taps).astype(x.dtype, copy=False)
        return as_format(y, format_of(x))        # channels-last stays channels-last

    @staticmethod
    def backward(ctx, grad):
        return ResampleAdjoint.apply(grad, *ctx.args), None, None, None


class ResampleAdjoint(Function):
    backward_name = "UpsampleBackwardBackward0"

    @staticmethod
    def forward(ctx, g, axis, taps, in_size):
        ctx.args = (axis, taps, in_size)
        scattered = _scatter(_compute(g), axis, taps, in_size)
        return as_format(scattered.astype(g.dtype, copy=False), format_of(g))

    @staticmethod
    def backward(ctx, grad):
        return Resample.apply(grad, *ctx.args), None, None, None


# ---------------------------------------------------------------- source positions
def _inverse_scale(in_size: int, out_size: int, scale, dtype) -> np.floating:
    """Input step per output step: 1/scale_factor when given, else in/out (torch's rule)."""
    if scale is not None and scale > 0:
        return dtype(1.0 / scale)
    return dtype(in_size) / dtype(out_size)


def _nearest_taps(in_size, out_size, scale, exact: bool):
    j = np.arange(out_size)
    if not exact and out_size == in_size:
        return [(j, None)]
    if not exact and out_size == 2 * in_size:
        return [(j // 2, None)]
    step = _inverse_scale(in_size, out_size, scale, np.float32)
    pos = (j + 0.5) * step if exact else j.astype(np.float32) * step
    src = np.floor(pos.astype(np.float32)).astype(np.int64)
    return [(np.minimum(src, in_size - 1), None)]


def _source_positions(in_size, out_size, scale, align_corners, dtype, cubic: bool):
    """Real-valued input coordinate of each output position."""
    j = np.arange(out_size, dtype=dtype)
    if align_corners:
        step = dtype(in_size - 1) / dtype(out_size - 1) if out_size > 1 else dtype(0)
        return step * j
    src = _inverse_scale(in_size, out_size, scale, dtype) * (j + dtype(0.5)) - dtype(0.5)
    return src if cubic else np.maximum(src, dtype(0))


def _linear_taps(in_size, out_size, scale, align_corners, dtype):
    src = _source_positions(in_size, out_size, scale, align_corners, dtype, cubic=False)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    frac = np.clip(src - i0, 0, 1).astype(dtype)
    i1 = np.minimum(i0 + 1, in_size - 1)
    return [(i0, dtype(1) - frac), (i1, frac)]


def _cubic_weights(t: np.ndarray) -> list:
    a = _CUBIC_A

    def near(x):    # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):     # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_taps(in_size, out_size, scale, align_corners, dtype):
    src = _source_positions(in_size, out_size, scale, align_corners, dtype, cubic=True)
    base = np.floor(src)
    weights = _cubic_weights((src - base).astype(dtype))
    base = base.astype(np.int64)
    return [(np.clip(base - 1 + k, 0, in_size - 1), w.astype(dtype))
            for k, w in enumerate(weights)]


# ---------------------------------------------------------------- interpolate
_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_NODE_NAMES = {"nearest": "UpsampleNearest{}DBackward0",
               "nearest-exact": "UpsampleNearestExact{}DBackward0",
               "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
               "bicubic": "UpsampleBicubic2DBackward0",
               "trilinear": "UpsampleTrilinear3DBackward0"}


def _sizes_and_scales(input: Tensor, size, scale_factor, recompute_scale_factor, mode: str):
    """torch's argument rules: exactly one of size / scale_factor, one value per spatial dim."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(s) for s in size]}")
            out = [int(s) for s in size]
        else:
            out = [int(size)] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None   # the kernel then derives the step from the integer sizes
    return out, scales


def _check_mode_dims(input: Tensor, mode: str) -> None:
    d = input.dim()
    if mode in _MODE_DIMS and d in (3, 4, 5) and d - 2 != _MODE_DIMS[mode]:
        need = _MODE_DIMS[mode] + 2
        raise NotImplementedError(f"Got {d}D input, but {mode} mode needs {need}D input")
    if d not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", *_MODE_DIMS):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {d}D) for the "
            "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of an (N, C, *spatial) input."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _sizes_and_scales(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias:
        if not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                             "modes and requires a 4-D tensor as input")
        if not input.is_floating_point():
            return _integer_image(input, out, scales, align_corners, mode, True,
                                  "compute_index_ranges_weights")
        return _antialiased(input, out, scales, align_corners, mode)
    if mode == "lanczos":
        raise ValueError("Lanczos mode requires antialias=True")
    _check_mode_dims(input, mode)
    if not input.is_floating_point() and (input.dtype != _dtype.uint8 or mode not in (
            "nearest", "nearest-exact")):
        return _integer_image(input, out, scales, align_corners, mode, False,
                              _INTEGER_REFUSALS[mode][len(out) == 2])
    spatial = tuple(input.shape[2:])
    if any(o <= 0 for o in out) or any(s <= 0 for s in spatial):
        names = "DHW"[3 - len(spatial):]
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input ("
            + ", ".join(f"{n}: {s}" for n, s in zip(names, spatial)) + ") output ("
            + ", ".join(f"{n}: {o}" for n, o in zip(names, out)) + ")")
    if mode == "area":
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[len(out) - 1]
        return pool(input, out)
    dtype = np.float64 if input.dtype == _dtype.float64 else np.float32
    y = input
    for d, (n, o) in enumerate(zip(spatial, out)):
        scale = scales[d] if scales is not None else None
        if mode in ("nearest", "nearest-exact"):
            taps = _nearest_taps(n, o, scale, exact=mode == "nearest-exact")
        elif mode == "bicubic":
            taps = _cubic_taps(n, o, scale, align_corners, dtype)
        else:
            taps = _linear_taps(n, o, scale, align_corners, dtype)
        y = Resample.apply(y, 2 + d, taps, n)
    return _named(y, _NODE_NAMES[mode].format(len(out)))


# torch's kernels refusing integer images other than uint8 ones resized by nearest
# neighbours or (2-d) bilinear/bicubic, by mode and whether the image is 2-d: its messages
# name them
_INTEGER_REFUSALS = {
    "nearest": ("compute_indices_weights_nearest", "upsample_nearest2d_channels_last"),
    "nearest-exact": ("compute_indices_weights_nearest", "upsample_nearest2d_channels_last"),
    "bilinear": (None, "upsample_bilinear2d_channels_last"),
    "bicubic": (None, "compute_indices_weights_cubic"),
    "area": ("adaptive_avg_pool2d", "adaptive_avg_pool2d"),
    "linear": ("compute_indices_weights_linear", None),
    "trilinear": ("compute_indices_weights_linear", None)}


def _integer_image(input: Tensor, out, scales, align_corners, mode: str, antialias: bool,
                   kernel: str) -> Tensor:
    """A uint8 image resized by bilinear, bicubic (or antialiased lanczos) filters, in
    torch's fixed point; other integer images are refused as torch's `kernel` refuses
    them."""
    if input.dtype != _dtype.uint8 or mode not in ("bilinear", "bicubic", "lanczos"):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return _resampled_uint8(input, out, scales, align_corners, mode, antialias)


@recorded("upsample_uint8")
def _resampled_uint8(input: Tensor, out, scales, align_corners, mode, antialias) -> Tensor:
    windows = {}
    for axis in (3, 2):         # the width first, as torch
        n, size = input.shape[axis], out[axis - 2]
        if size != n:
            scale = scales[axis - 2] if scales is not None else None
            windows[axis] = plain_window(_cubic_taps(n, size, scale, align_corners, np.float64),
                                         n) if mode == "bicubic" and not antialias else \
                window_weights(n, size, scale, align_corners, mode, antialias, np.float64)
    data = input.numpy(force=True)
    return Tensor._wrap(as_format(resample_uint8(data, windows), format_of(data)))


def _antialiased(input: Tensor, out, scales, align_corners, mode: str) -> Tensor:
    """interpolate with antialias=True: the width first, then the height, as torch; a dim
    whose size does not change is left as it is."""
    dtype = np.float64 if input.dtype == _dtype.float64 else np.float32
    y = input
    for d in (1, 0):
        n = input.shape[2 + d]
        if out[d] != n:
            scale = scales[d] if scales is not None else None
            y = Resample.apply(y, 2 + d, antialias_taps(n, out[d], scale, align_corners, mode,
                                                        dtype), n)
    if y is input:              # the same size: a new tensor all the same, as torch's
        y = input.clone()
    return _named(y, f"Upsample{mode.capitalize()}2DAaBackward0")


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated: warns, then resizes like interpolate."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: warns, then resizes like interpolate(mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: warns, then resizes like interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------- pixel shuffle
def _check_at_least_3d(input: Tensor, name: str) -> None:
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): channel blocks become spatial blocks."""
    _check_at_least_3d(input, "pixel_shuffle")
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c} is not divisible by {r * r}")
    k = len(lead)
    y = input.reshape(*lead, c // (r * r), r, r, h, w)
    y = y.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return _named(y.reshape(*lead, c // (r * r), h * r, w * r), "PixelShuffleBackward0")


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of pixel_shuffle."""
    _check_at_least_3d(input, "pixel_unshuffle")
    r = downscale_factor
    *lead, c, h, w = input.shape
    for name, size, d in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={size} is not divisible "
                               f"by {r}")
    k = len(lead)
    y = input.reshape(*lead, c, h // r, r, w // r, r)
    y = y.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return _named(y.reshape(*lead, c * r * r, h // r, w // r), "PixelUnshuffleBackward0")


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, g*k, *) -> (N, k*g, *): interleave the channels of the g groups (ShuffleNet)."""
    _check_at_least_3d(input, "channel_shuffle")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle
