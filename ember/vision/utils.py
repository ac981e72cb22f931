"""torchvision.utils: make_grid and save_image."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ._pil import pil_image
from . import _unavailable

__all__ = ["make_grid", "save_image"]


def _normalized(data: np.ndarray, value_range, scale_each: bool) -> np.ndarray:
    """Clamp to value_range (default: the data's own min and max) and map it to [0, 1]."""
    if value_range is not None and not isinstance(value_range, tuple):
        raise TypeError("value_range has to be a tuple (min, max) if specified. min and max "
                        "are numbers")
    axes = tuple(range(1, data.ndim)) if scale_each else None
    if value_range is not None:
        low, high = np.asarray(value_range[0]), np.asarray(value_range[1])
    else:
        low, high = data.min(axis=axes, keepdims=True), data.max(axis=axes, keepdims=True)
    clamped = np.clip(data, low, high)
    return ((clamped - low) / np.maximum(high - low, 1e-5)).astype(data.dtype)


def make_grid(tensor: Tensor | list, nrow: int = 8, padding: int = 2, normalize: bool = False,
              value_range: tuple | None = None, scale_each: bool = False,
              pad_value: float = 0.0) -> Tensor:
    """Tile a batch (B, C, H, W) (or a list of CHW images) into one (C, H', W') image with
    nrow images per row, separated by `padding` pixels of pad_value. One-channel images
    become three-channel, as torchvision does."""
    if not isinstance(tensor, Tensor):
        if not isinstance(tensor, list):
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
        for t in tensor:
            if not isinstance(t, Tensor):
                raise TypeError(f"tensor or list of tensors expected, got a list containing "
                                f"{type(t)}")
        data = np.stack([t.numpy(force=True) for t in tensor])
    else:
        data = tensor.numpy(force=True)
    if data.ndim == 2:
        data = data[None]
    if data.ndim == 3:
        if data.shape[0] == 1:
            data = np.concatenate([data] * 3, axis=0)
        data = data[None]
    if data.ndim == 4 and data.shape[1] == 1:
        data = np.concatenate([data] * 3, axis=1)
    if normalize:
        data = _normalized(data, value_range, scale_each)
    if data.shape[0] == 1:
        return Tensor._wrap(np.ascontiguousarray(data[0]))
    nmaps, channels, h, w = data.shape
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(nmaps / xmaps))
    cell_h, cell_w = h + padding, w + padding
    # Each image sits in a cell with `padding` pixels above and to its left; the grid adds
    # one more band of padding on the bottom and right.
    cells = np.full((ymaps * xmaps, channels, cell_h, cell_w), pad_value, dtype=data.dtype)
    cells[:nmaps, :, padding:, padding:] = data
    tiled = cells.reshape(ymaps, xmaps, channels, cell_h, cell_w).transpose(2, 0, 3, 1, 4)
    grid = np.full((channels, ymaps * cell_h + padding, xmaps * cell_w + padding), pad_value,
                   dtype=data.dtype)
    grid[:, :ymaps * cell_h, :xmaps * cell_w] = tiled.reshape(channels, ymaps * cell_h,
                                                              xmaps * cell_w)
    return Tensor._wrap(grid)


def save_image(tensor: Tensor | list, fp, format: str | None = None, **kwargs) -> None:
    """Save make_grid(tensor, **kwargs) as an 8-bit image file (PNG unless fp or format
    says otherwise); values are taken as [0, 1] and rounded to the nearest level."""
    grid = make_grid(tensor, **kwargs).numpy(force=True)
    array = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    image = pil_image().fromarray(np.ascontiguousarray(array))
    image.save(fp, format=format)


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["draw_bounding_boxes", "draw_segmentation_masks", "draw_keypoints",
                "flow_to_image"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
__all__ += _UNAVAILABLE
