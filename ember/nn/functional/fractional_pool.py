"""Fractional max pooling (Graham, "Fractional Max-Pooling", 2014).

Windows of a fixed size start at pseudo-random positions that step through the input
by a non-integer average stride, so the output can be any size smaller than the input.
One number u in [0, 1) per (batch, channel, spatial dim) fixes the starts; torch draws
them with `rand` unless `_random_samples` passes them in (which makes tests exact).
The max is found without autograd, as flat input indices; the differentiable part is
pooling's Gather of the input at those indices.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..._recorded_call import replayed_call
from ..._tensor import Tensor
from ...ops.random import rand
from ._checks import require_floating
from .conv import _tuple
from .pooling import _flat_spatial, _picked

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

# torch's kernels read a plane's 2-d sample as (w, h) but its 3-d sample as (t, h, w).
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _window_starts(u: np.ndarray, in_size: int, out_size: int, pool: int) -> np.ndarray:
    """(..., out_size) window starts for samples u (...): from 0 in steps of
    alpha = (in_size - pool) / (out_size - 1) on average, the last at in_size - pool.
    Computed in the samples' dtype, as torch does, so float32 rounds alike."""
    starts = np.empty(u.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = u.dtype.type(in_size - pool) / u.dtype.type(out_size - 1)
        i = np.arange(out_size - 1, dtype=u.dtype)
        u = u[..., None]
        starts[..., :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out_size > 0:
        starts[..., -1] = in_size - pool
    return starts


def _argmax_indices(x: np.ndarray, starts: list, kernel: tuple) -> np.ndarray:
    """Flat spatial index of each window's maximum (a NaN wins; among NaNs, the last)."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    dims = len(spatial)
    corner = np.zeros((n, c) + (1,) * dims, dtype=np.int64)   # index of each window's start
    for d, s in enumerate(starts):
        along_d = (n, c) + (1,) * d + (s.shape[-1],) + (1,) * (dims - d - 1)
        corner = corner * spatial[d] + s.reshape(along_d)
    flat_x = _flat_spatial(x)
    flat_strides = [math.prod(spatial[d + 1:]) for d in range(dims)]
    best = np.full(corner.shape, -np.inf, dtype=x.dtype)
    winner = corner.copy()
    for offset in itertools.product(*(range(k) for k in kernel)):
        index = corner + sum(o * s for o, s in zip(offset, flat_strides))
        value = np.take_along_axis(flat_x, _flat_spatial(index), 2).reshape(index.shape)
        better = (value > best) | np.isnan(value)
        best = np.where(better, value, best)
        winner = np.where(better, index, winner)
    return winner


def _output_size(input: Tensor, n: int, output_size, output_ratio) -> tuple:
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _tuple(output_size, n, "output_size")
    # torch's 2-d functional rejects a plain number here (len() of a float); ember takes it.
    ratio = (output_ratio,) if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
    ratio = ratio * n if len(ratio) == 1 else ratio
    if len(ratio) != n:
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of "
                         "Ints.")
    return tuple(int(input.size(d - n) * r) for d, r in enumerate(ratio))


def _check_input(x: Tensor, n: int, name: str) -> None:
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(x.shape)}")
    for d in range(x.ndim - n - 1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(x.shape)} with dimension {d} being "
                               "empty.")


def _check_samples(samples: Tensor, x: Tensor, n: int) -> None:
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if samples.shape[0] < x.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != x.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    if samples.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")


def _fractional_max_poolnd(n: int, input: Tensor, kernel_size, output_size, output_ratio,
                           return_indices: bool, samples: Tensor | None):
    name = "fractional_max_pool2d()" if n == 2 else "fractional_max_pool3d_out()"
    out = _output_size(input, n, output_size, output_ratio)
    kernel = _tuple(kernel_size, n, "kernel_size")
    if any(k <= 0 for k in kernel):
        # torch's functional form reads outside the input here; the module raises this.
        raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
    if samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype)
    _check_input(input, n, name)
    require_floating(input, f"fractional_max_pool{n}d_out_frame")
    unbatched = input.ndim == n + 1
    x = input.unsqueeze(0) if unbatched else input
    _check_samples(samples, x, n)
    spatial = tuple(x.shape[2:])
    for dim_name, size, o, k in zip(_DIM_NAMES[n], spatial, out, kernel):
        if o + k - 1 > size:
            raise RuntimeError(f"{name}: pool {dim_name} {k} too large relative to input "
                               f"{dim_name} {size}")
    indices = _fractional_indices(n, x, samples, out, kernel)
    return _picked(x, indices, f"FractionalMaxPool{n}DBackward0", unbatched, return_indices)


@replayed_call
def _fractional_indices(n: int, x: Tensor, samples: Tensor, out, kernel) -> np.ndarray:
    """The flat spatial position of each window's maximum, the windows starting where
    the samples put them."""
    spatial = tuple(x.shape[2:])
    u = samples.numpy(force=True)[:x.shape[0]]
    starts = [_window_starts(u[..., _SAMPLE_OF_DIM[n][d]], spatial[d], out[d], kernel[d])
              for d in range(n)]
    return _argmax_indices(x.numpy(force=True), starts, kernel)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Max over kernel_size windows at pseudo-random starts, to output_size (oH, oW) or
    output_ratio times the input size; return_indices adds the flat index of each max."""
    return _fractional_max_poolnd(2, input, kernel_size, output_size, output_ratio,
                                  return_indices, _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """The 3-d (T, H, W) form of fractional_max_pool2d."""
    return _fractional_max_poolnd(3, input, kernel_size, output_size, output_ratio,
                                  return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None):
    """2-D fractional max pooling with pseudo-random pooling regions reaching output_size (or
    output_ratio of the input); returns (output, indices) when return_indices=True."""
    return _fractional_max_poolnd(2, input, kernel_size, output_size, output_ratio, True,
                                  _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None):
    """3-D fractional max pooling with pseudo-random pooling regions; returns (output, indices) when
    return_indices=True."""
    return _fractional_max_poolnd(3, input, kernel_size, output_size, output_ratio, True,
                                  _random_samples)
