"""Resampling through a filter window, as torch's separable "aa" kernels compute it:
interpolate(antialias=True) on float images, and bilinear/bicubic on uint8 images (with or
without antialias), which torch computes in fixed point.

Output i of one dim reads the inputs around its centre, `step * (i + 0.5)` (step = input
pixels per output pixel), weighted by the mode's filter and normalised to sum to 1. With
antialias, a shrinking dim stretches the filter over `step` inputs, so every input pixel
counts (Pillow's resampling); without it the window is plain bilinear's (plain bicubic's
four clamped taps are gathered into a window by `plain_window`).

uint8 images are resampled in integers: each dim's weights are scaled by 2**precision
(the largest precision keeping them in int16) and rounded; a pass adds
2**(precision - 1) and shifts back, clamping to 0..255; the width is resampled first and
its uint8 result is the height pass's input.
"""
from __future__ import annotations

import math

import numpy as np


def _triangle(x: np.ndarray) -> np.ndarray:
    return np.maximum(1 - np.abs(x), 0)


def _keys_cubic(x: np.ndarray) -> np.ndarray:
    """The cubic convolution kernel with a = -0.5 (Pillow's, which torch's antialiased
    bicubic follows; its plain bicubic uses -0.75, see vision._cubic_taps)."""
    x = np.abs(x)
    near = (1.5 * x - 2.5) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * -0.5
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _lanczos3(x: np.ndarray) -> np.ndarray:
    return np.where((-3 <= x) & (x < 3), np.sinc(x) * np.sinc(x / 3), 0.0)


# mode -> (filter, its width in input pixels when not stretched)
_FILTERS = {"bilinear": (_triangle, 2), "bicubic": (_keys_cubic, 4), "lanczos": (_lanczos3, 6)}


def _step(in_size: int, out_size: int, scale, align_corners: bool, dtype):
    """Input pixels per output pixel (torch's area_pixel_compute_scale)."""
    if align_corners:
        return dtype(in_size - 1) / dtype(out_size - 1) if out_size > 1 else dtype(0)
    if scale is not None and scale > 0:
        return dtype(1.0 / scale)
    return dtype(in_size) / dtype(out_size)


def window_weights(in_size, out_size, scale, align_corners, mode, antialias, dtype):
    """(index, weights), each (out_size, taps): the inputs each output reads and their
    normalised weights (0 past the output's window). Positions are computed in `dtype`
    and the filter in float64, as torch does; without antialias and with align_corners
    (the uint8 path) the centres move by half a pixel."""
    kernel, width = _FILTERS[mode]
    step = _step(in_size, out_size, scale, align_corners, dtype)
    stretched = antialias and step >= 1
    support = dtype(width / 2) * step if stretched else dtype(width / 2)
    shrink = 1 / np.float64(step) if stretched else 1.0
    delta = 0.5 if align_corners and not antialias else 0.0
    center = step * (np.arange(out_size) + dtype(0.5 - delta))
    first = np.maximum(np.trunc((center - support) + (0.5 + delta)).astype(np.int64), 0)
    last = np.minimum(np.trunc((center + support) + (0.5 + delta)).astype(np.int64), in_size)
    taps = int(math.ceil(support)) * 2 + 1
    count = np.clip(last - first, 0, taps)
    j = np.arange(taps)
    offsets = (first[:, None] + j).astype(dtype) - center[:, None]
    weights = kernel((offsets + (0.5 - delta)) * shrink).astype(dtype)
    weights[j >= count[:, None]] = 0
    total = np.cumsum(weights, axis=1)[:, -1:]     # summed in order, as torch does
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    return np.minimum(first[:, None] + j, in_size - 1), weights


def antialias_taps(in_size, out_size, scale, align_corners, mode, dtype) -> list:
    """interpolate(antialias=True)'s taps along one dim: [(index, weight)] per tap, each
    over the outputs, for vision.Resample."""
    index, weights = window_weights(in_size, out_size, scale, align_corners, mode, True,
                                     dtype)
    return [(index[:, t], weights[:, t]) for t in range(index.shape[1])]


def plain_window(taps, in_size: int) -> tuple:
    """Fixed taps [(index, weight)] (plain bicubic's 4, indices clamped at the borders) as
    (index, weights) of windows, the weights of a clamped index added together, as torch's
    uint8 bicubic gathers them."""
    first = taps[0][0]
    rows = np.arange(first.size)
    weights = np.zeros((first.size, len(taps)))
    for index, weight in taps:
        np.add.at(weights, (rows, index - first), weight)
    return np.minimum(first[:, None] + np.arange(len(taps)), in_size - 1), weights


def resample_uint8(x: np.ndarray, windows: dict) -> np.ndarray:
    """A uint8 array resampled along each axis of `windows` (axis -> (index, weights)
    from window_weights or plain_window) in torch's fixed point, in the order given."""
    for axis, (index, weights) in windows.items():
        precision = _precision(weights.max())
        fixed = weights * (1 << precision)
        fixed = np.where(fixed < 0, np.trunc(fixed - 0.5), np.trunc(fixed + 0.5))
        shape = x.shape[:axis] + (index.shape[0],) + x.shape[axis + 1:]
        total = np.full(shape, 1 << (precision - 1), np.int64)
        along = (-1,) + (1,) * (x.ndim - axis - 1)
        for t in range(index.shape[1]):
            total += np.take(x, index[:, t], axis=axis).astype(np.int64) * \
                fixed[:, t].astype(np.int64).reshape(along)
        x = np.clip(total >> precision, 0, 255).astype(np.uint8)
    return x if windows else x.copy()


def _precision(largest_weight: float) -> int:
    """The number of fraction bits for int16 weights: the most (up to 22) for which the
    largest weight, scaled with one bit more, still stays below 2**15."""
    precision = 0
    while precision < 22 and int(0.5 + largest_weight * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    return precision
