"""affine_grid and grid_sample: sampling an image at arbitrary points (spatial
transformer networks).

A grid holds, for every output pixel, the (x, y) point to read in the input, in
normalized coordinates: -1 and 1 are the input's edges (the centres of its corner
pixels with align_corners=True, their outer edges with align_corners=False).
grid_sample reads the input there, interpolating linearly between the 2^d neighbouring
pixels (bilinear, trilinear for volumes), cubically between the 4x4 around the point
(bicubic), or taking the nearest one; affine_grid makes the grid of an affine map. Both are written with differentiable ember ops, so the gradients with respect to
the input, the grid and the affine matrices (and higher-order ones) come from autograd.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from ..._dtype import from_numpy_dtype
from ..._tensor import Tensor
from ...ops.creation import linspace
from ...ops.indexing import _named

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _align_corners(align_corners) -> bool:
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


# ---------------------------------------------------------------- affine_grid
def _base_coordinates(size: int, align_corners: bool, dtype) -> np.ndarray:
    """The normalized coordinates of `size` pixel positions along one axis, rounded as
    torch's (linspace in `dtype`, then times (size - 1), then over size): grid_sample's
    gradient takes the floor of these, so one ulp changes it at pixel centres."""
    if size <= 1:
        return np.zeros(size, dtype)
    points = linspace(-1, 1, size, dtype=from_numpy_dtype(dtype)).numpy()
    if not align_corners:
        points = points * dtype.type(size - 1) / dtype.type(size)
    return points


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta
    (N, 2, 3) (or (N, 3, 4)) for an output of `size` (N, C, H, W) (or (N, C, D, H, W))."""
    align = _align_corners(align_corners)
    size = tuple(int(s) for s in size)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"{theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and "
                                  f"3D affine transforms, respectively. Got size {size}.")
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape "
                         f"Nx{dims}x{dims + 1} for size {size}. Got {theta.shape}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dtype = theta.dtype.numpy
    spatial = size[2:]
    axes = [_base_coordinates(n, align, dtype) for n in reversed(spatial)]   # x, y, (z)
    mesh = list(np.meshgrid(*reversed(axes), indexing="ij"))[::-1]           # x first
    base = np.stack(mesh + [np.ones(spatial, dtype)], axis=-1)           # (*spatial, d+1)
    base = Tensor._wrap(np.ascontiguousarray(base.reshape(1, -1, dims + 1)))
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {dims + 1}] but got: [{theta.shape[0]}, {dims + 1}].")
    grid = base.expand(size[0], -1, -1).bmm(theta.transpose(1, 2))
    return _named(grid.reshape((size[0],) + spatial + (dims,)), "AffineGridGeneratorBackward0")


# ---------------------------------------------------------------- grid_sample
def _unnormalize(coord: Tensor, size: int, align_corners: bool, planar: bool) -> Tensor:
    """Normalized coordinates -> pixel coordinates along an axis of `size` pixels, rounded
    as torch's CPU kernels: the 2-D (planar) one scales by size / 2, the 3-D one divides
    by 2 last. (Floors of these decide the taps, so one ulp matters at pixel centres.)"""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    if planar:
        return (coord + 1) * (size / 2) - 0.5
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """coord reflected back and forth into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = distance.fmod(span)
    flips = (distance / span).floor().detach()
    even = (flips.remainder(2) == 0)
    return extra.where(even, span - extra) + low


def _source_coordinates(coord: Tensor, size: int, padding_mode: str,
                        align_corners: bool, planar: bool) -> Tensor:
    coord = _unnormalize(coord, size, align_corners, planar)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else \
            _reflect(coord, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        coord = coord.clamp(0, size - 1)
    return coord


def _taps(input: Tensor, batch: Tensor, positions: list) -> Tensor:
    """input[n, :, *position] at integer positions (one (N, *out) tensor per spatial dim,
    outermost first), zero outside the input, as (N, C, *out)."""
    sizes = input.shape[2:]
    inside = None
    for pos, size in zip(positions, sizes):
        ok = (pos >= 0) & (pos < size)
        inside = ok if inside is None else inside & ok
    clamped = [pos.clamp(0, size - 1) for pos, size in zip(positions, sizes)]
    values = input[(batch, slice(None), *clamped)]                    # (N, *out, C)
    values = values * inside.unsqueeze(-1).to(input.dtype)
    return values.movedim(-1, 1)


def _check_grid_sample(input: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch "
                           f"size, but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")
    if mode == "bicubic" and input.ndim == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners=None) -> Tensor:
    """input (N, C, H, W) read at the points of grid (N, Ho, Wo, 2) (x, y in [-1, 1]), giving
    (N, C, Ho, Wo); or volumetric input (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) (x, y, z).
    mode 'bilinear' (trilinear in 3-D), 'nearest' or 'bicubic' (4-D only); padding_mode says
    what lies outside the input: 'zeros', the 'border' values, or the input's 'reflection'."""
    _check_grid_sample(input, grid, mode, padding_mode)
    align = _align_corners(align_corners)
    sizes = input.shape[2:]
    name = f"GridSampler{len(sizes)}DBackward0"
    # grid's last dim lists x (the innermost dim) first; positions go outermost first
    coords = [grid[..., len(sizes) - 1 - d] for d in range(len(sizes))]
    batch = Tensor._wrap(np.arange(input.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2)))
    if mode == "bicubic":
        return _named(_bicubic(input, batch, coords, padding_mode, align), name)
    coords = [_source_coordinates(c, size, padding_mode, align, len(sizes) == 2)
              for c, size in zip(coords, sizes)]
    if mode == "nearest":
        # The output depends on the grid only through rounding: torch gives the grid a
        # zero gradient, which a factor of exactly 1 (c - c.detach() is 0) keeps.
        total = sum(coords)
        one = 1 + 0 * (total - total.detach())
        out = _taps(input, batch, [_round_half_even(c) for c in coords]) * one.unsqueeze(1)
        return _named(out, name)
    lows = [c.detach().floor() for c in coords]
    highs = [c - low for c, low in zip(coords, lows)]      # the gradient flows through these
    weights = [(1 - high, high) for high in highs]         # of the low and the high neighbour
    lows = [low.long() for low in lows]
    out = 0
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        weight = math.prod(w[side] for w, side in zip(weights, corner))
        out = out + _taps(input, batch, [low + side for low, side in zip(lows, corner)]) * \
            weight.unsqueeze(1)
    return _named(out, name)


CUBIC_A = -0.75      # the cubic convolution parameter torch uses (as OpenCV and PIL)


def _cubic_weights(t: Tensor) -> list:
    """Weights of the four taps at offsets -1, 0, 1, 2 for fractional position t."""
    def near(x):       # |x| <= 1
        return ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1

    def far(x):        # 1 < |x| < 2
        return ((CUBIC_A * x - 5 * CUBIC_A) * x + 8 * CUBIC_A) * x - 4 * CUBIC_A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(input: Tensor, batch: Tensor, coords: list, padding_mode: str,
             align: bool) -> Tensor:
    """Bicubic sampling: the 4x4 taps around each point, each tap's integer position moved
    inside by the padding mode (the weights come from the unmoved point, as in torch)."""
    (y, x), (height, width) = [_unnormalize(c, size, align, True) for c, size in
                               zip(coords, input.shape[2:])], input.shape[2:]
    y0, x0 = y.detach().floor(), x.detach().floor()
    wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)
    out = 0
    for i in range(4):
        ys = _tap_position(y0 + (i - 1), height, padding_mode, align)
        for j in range(4):
            xs = _tap_position(x0 + (j - 1), width, padding_mode, align)
            out = out + _taps(input, batch, [ys, xs]) * (wy[i] * wx[j]).unsqueeze(1)
    return out


def _tap_position(coord: Tensor, size: int, padding_mode: str, align: bool) -> Tensor:
    """An integer tap position after the padding mode's clipping or reflection."""
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align else _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord.long()


def _round_half_even(coord: Tensor) -> Tensor:
    """The nearest pixel index (halves to even, as torch's nearbyint)."""
    return Tensor._wrap(np.rint(coord.numpy(force=True)).astype(np.int64))
