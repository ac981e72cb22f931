"""affine_grid and grid_sample: sampling an image at arbitrary points (spatial
transformer networks).

A grid holds, for every output pixel, the (x, y) point to read in the input, in
normalized coordinates: -1 and 1 are the input's edges (the centres of its corner
pixels with align_corners=True, their outer edges with align_corners=False).
grid_sample reads the input there, interpolating bilinearly between the four
neighbouring pixels (or taking the nearest one); affine_grid makes the grid of an affine
map. Both are written with differentiable ember ops, so the gradients with respect to
the input, the grid and the affine matrices (and higher-order ones) come from autograd.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
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
    """The normalized coordinates of `size` pixel positions along one axis."""
    if size <= 1:
        return np.zeros(size, dtype)
    points = np.linspace(-1, 1, size, dtype=np.float64)
    if not align_corners:
        points *= (size - 1) / size
    return points.astype(dtype)


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
def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Normalized coordinates -> pixel coordinates along an axis of `size` pixels."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
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
                        align_corners: bool) -> Tensor:
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else \
            _reflect(coord, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        coord = coord.clamp(0, size - 1)
    return coord


def _taps(input: Tensor, batch: Tensor, ys: Tensor, xs: Tensor) -> Tensor:
    """input[n, :, y, x] at integer positions (N, Ho, Wo), zero outside the image, as
    (N, C, Ho, Wo)."""
    height, width = input.shape[2:]
    inside = ((xs >= 0) & (xs < width) & (ys >= 0) & (ys < height))
    values = input[batch, :, ys.clamp(0, height - 1), xs.clamp(0, width - 1)]   # (N,Ho,Wo,C)
    return (values * inside.unsqueeze(-1).to(input.dtype)).permute(0, 3, 1, 2)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners=None) -> Tensor:
    """input (N, C, H, W) read at the points of grid (N, Ho, Wo, 2) (x, y in [-1, 1]):
    (N, C, Ho, Wo). mode 'bilinear' or 'nearest'; padding_mode says what lies outside the
    input: 'zeros', the 'border' pixels, or the input's 'reflection'."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align = _align_corners(align_corners)
    if input.ndim == 5 or mode == "bicubic":
        raise NotImplementedError("grid_sample: ember supports 4-D inputs with mode "
                                  "'bilinear' or 'nearest' (no volumetric or bicubic "
                                  "sampling)")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch "
                           f"size, but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")
    height, width = input.shape[2:]
    x = _source_coordinates(grid[..., 0], width, padding_mode, align)
    y = _source_coordinates(grid[..., 1], height, padding_mode, align)
    batch = Tensor._wrap(np.arange(input.shape[0]).reshape(-1, 1, 1))
    if mode == "nearest":
        # The output depends on the grid only through rounding: torch gives the grid a
        # zero gradient, which a factor of exactly 1 (x - x.detach() is 0) keeps.
        one = 1 + 0 * (x + y - (x + y).detach())
        out = _taps(input, batch, _round_half_even(y), _round_half_even(x)) * one.unsqueeze(1)
        return _named(out, "GridSampler2DBackward0")
    x0, y0 = x.detach().floor(), y.detach().floor()
    wx1, wy1 = x - x0, y - y0                        # the gradient flows through these
    wx0, wy0 = 1 - wx1, 1 - wy1
    x0, y0 = x0.long(), y0.long()
    out = 0
    for ys, wy in ((y0, wy0), (y0 + 1, wy1)):
        for xs, wx in ((x0, wx0), (x0 + 1, wx1)):
            out = out + _taps(input, batch, ys, xs) * (wy * wx).unsqueeze(1)
    return _named(out, "GridSampler2DBackward0")


def _round_half_even(coord: Tensor) -> Tensor:
    """The nearest pixel index (halves to even, as torch's nearbyint)."""
    return Tensor._wrap(np.rint(coord.numpy(force=True)).astype(np.int64))
