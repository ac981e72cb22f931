"""RoIAlign (He et al., Mask R-CNN, 2017), torchvision.ops.roi_align: average-pool each
region of interest into a fixed grid of bins, sampling the feature map bilinearly at
regularly spaced points of each bin (no rounding of the region's coordinates)."""
from __future__ import annotations

import math

import numpy as np

from ... import empty, nn, stack, tensor
from ..._tensor import Tensor
from ._utils import check_roi_boxes_shape, convert_boxes_to_roi_format
from .. import _unavailable

__all__ = ["roi_align", "RoIAlign"]


def _pair(size) -> tuple:
    return (size, size) if isinstance(size, int) else tuple(size)


def _axis_weights(start: float, bin_size: float, bins: int, grid: int,
                  length: int) -> tuple[np.ndarray, int, int]:
    """The (bins, length) matrix averaging, along one axis, the bilinear samples of each
    bin (grid samples a bin), and the range [lo, hi) of feature positions it touches.
    torchvision's rules: a sample more than one pixel outside the map contributes 0, one
    in [-1, 0) is read at 0, one past the last pixel at the last pixel."""
    offsets = (np.arange(grid) + 0.5) * bin_size / grid
    coords = start + np.arange(bins)[:, None] * bin_size + offsets[None, :]  # (bins, grid)
    inside = (coords >= -1.0) & (coords <= length)
    coords = np.clip(coords, 0.0, None)
    low = np.floor(coords).astype(np.int64)
    at_edge = low >= length - 1
    low = np.where(at_edge, length - 1, low)
    high = np.where(at_edge, length - 1, low + 1)
    frac = np.where(at_edge, 0.0, coords - low)
    weights = np.zeros((bins, length))
    rows = np.repeat(np.arange(bins), grid)
    np.add.at(weights, (rows, low.ravel()), ((1 - frac) * inside).ravel())
    np.add.at(weights, (rows, high.ravel()), (frac * inside).ravel())
    touched = np.nonzero(weights.any(axis=0))[0]
    if len(touched) == 0:
        return weights[:, :1], 0, 1
    lo, hi = int(touched[0]), int(touched[-1]) + 1
    return weights[:, lo:hi], lo, hi


def roi_align(input: Tensor, boxes, output_size, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = False) -> Tensor:
    """Pool each box into output_size bins of input (N, C, H, W). boxes is a (K, 5)
    tensor of (batch index, x1, y1, x2, y2) or a list of per-image (L, 4) tensors, in
    input coordinates before spatial_scale. sampling_ratio points per bin side (-1:
    ceil(box size / output size)); aligned=True shifts the boxes by half a pixel so
    that pixel centres line up. Returns (K, C, output_size); differentiable in input."""
    check_roi_boxes_shape(boxes)
    rois = boxes if isinstance(boxes, Tensor) else convert_boxes_to_roi_format(boxes)
    pooled_h, pooled_w = _pair(output_size)
    _, channels, height, width = input.shape
    if rois.shape[0] == 0:
        return empty((0, channels, pooled_h, pooled_w), dtype=input.dtype)
    offset = 0.5 if aligned else 0.0
    outputs = []
    # one matrix product per box: the bilinear sampling and bin averaging are separable
    for batch_index, x1, y1, x2, y2 in rois.detach().double().numpy().tolist():
        start_w, start_h = x1 * spatial_scale - offset, y1 * spatial_scale - offset
        roi_w, roi_h = x2 * spatial_scale - offset - start_w, y2 * spatial_scale - offset - start_h
        if not aligned:  # torchvision's legacy behaviour: boxes are at least 1x1
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        grid_h = sampling_ratio if sampling_ratio > 0 else math.ceil(roi_h / pooled_h)
        grid_w = sampling_ratio if sampling_ratio > 0 else math.ceil(roi_w / pooled_w)
        count = max(grid_h * grid_w, 1)
        wy, y0, y1_ = _axis_weights(start_h, roi_h / pooled_h, pooled_h, max(grid_h, 1), height)
        wx, x0, x1_ = _axis_weights(start_w, roi_w / pooled_w, pooled_w, max(grid_w, 1), width)
        if grid_h == 0 or grid_w == 0:
            wy, wx = wy * 0, wx * 0  # an empty sampling grid pools to 0
        region = input[int(batch_index), :, y0:y1_, x0:x1_]  # (C, h, w)
        ay = tensor(wy / count, dtype=input.dtype)  # (pooled_h, h)
        ax = tensor(wx.T, dtype=input.dtype)  # (w, pooled_w)
        outputs.append(ay @ region @ ax)
    return stack(outputs)


class RoIAlign(nn.Module):
    """Module form of roi_align."""

    def __init__(self, output_size, spatial_scale: float, sampling_ratio: int,
                 aligned: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input: Tensor, rois) -> Tensor:
        return roi_align(input, rois, self.output_size, self.spatial_scale,
                         self.sampling_ratio, self.aligned)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(output_size={self.output_size}, "
                f"spatial_scale={self.spatial_scale}, sampling_ratio={self.sampling_ratio}, "
                f"aligned={self.aligned})")


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["lazy_compile", "maybe_cast"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
