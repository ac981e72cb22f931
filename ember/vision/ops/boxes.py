"""Box utilities (torchvision.ops.boxes): non-maximum suppression, IoU and its
generalized / distance / complete variants, format conversion, areas, clipping and
boxes from masks. Boxes are (..., 4) tensors, "xyxy" (x1, y1, x2, y2) unless a format
says otherwise; the IoU functions are built from ember ops, so they are differentiable.
"""
from __future__ import annotations

import math

import numpy as np

from ... import (any as any_, atan, empty, float32, int64, max as max_, min as min_, no_grad,
                 stack, tensor, where, zeros)
from ..._tensor import Tensor
from ._utils import upcast

__all__ = ["nms", "batched_nms", "remove_small_boxes", "clip_boxes_to_image", "box_convert",
           "box_area", "box_iou", "generalized_box_iou", "complete_box_iou",
           "distance_box_iou", "masks_to_boxes"]

_AXIS_ALIGNED = ("xyxy", "xywh", "cxcywh")
_ROTATED = ("cxcywhr", "xywhr", "xyxyxyxy")


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """Greedy non-maximum suppression: walk the boxes by decreasing score, keeping a box
    and discarding every later box whose IoU with it exceeds iou_threshold. Returns the
    int64 indices of the kept boxes, by decreasing score."""
    if boxes.dim() != 2 or boxes.size(1) != 4:
        raise RuntimeError(f"boxes should have 2 dimensions and size 4 in dimension 1, got "
                           f"{boxes.dim()}D")
    if scores.dim() != 1 or scores.size(0) != boxes.size(0):
        raise RuntimeError("boxes and scores should have the same number of elements in "
                           f"dimension 0, got {boxes.size(0)} and {scores.size(0)}")
    b = boxes.detach().numpy()
    order = np.argsort(-scores.detach().numpy(), kind="stable")
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(b), dtype=bool)
    keep = []
    for position, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[position + 1:]
        w = np.maximum(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0)
        h = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0)
        inter = w * h
        suppressed[rest[inter / (areas[i] + areas[rest] - inter) > iou_threshold]] = True
    return tensor(np.asarray(keep, dtype=np.int64), dtype=int64)


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    """nms within each category of `idxs` (boxes of different categories never suppress
    each other); the kept indices by decreasing score."""
    if boxes.numel() == 0:
        return empty((0,), dtype=int64)
    # shift each category's boxes into a region of its own so they cannot overlap
    offsets = idxs.to(boxes.dtype) * (boxes.max() + 1)
    return nms(boxes + offsets[:, None], scores, iou_threshold)


def remove_small_boxes(boxes: Tensor, min_size: float) -> Tensor:
    """Indices of the boxes whose width and height are both at least min_size."""
    ws, hs = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return where((ws >= min_size) & (hs >= min_size))[0]


def clip_boxes_to_image(boxes: Tensor, size: tuple) -> Tensor:
    """Clamp the x coordinates to [0, width] and the y ones to [0, height] (size is
    (height, width))."""
    height, width = size
    xs = boxes[..., 0::2].clamp(min=0, max=width)
    ys = boxes[..., 1::2].clamp(min=0, max=height)
    return stack((xs, ys), dim=boxes.dim()).reshape(boxes.shape)


def _to_xyxy(boxes: Tensor, fmt: str) -> Tensor:
    a, b, c, d = boxes.unbind(-1)
    if fmt == "xywh":
        return stack((a, b, a + c, b + d), dim=-1)
    if fmt == "cxcywh":
        return stack((a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d), dim=-1)
    return boxes


def _from_xyxy(boxes: Tensor, fmt: str) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    if fmt == "xywh":
        return stack((x1, y1, x2 - x1, y2 - y1), dim=-1)
    if fmt == "cxcywh":
        return stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)
    return boxes


def box_convert(boxes: Tensor, in_fmt: str, out_fmt: str) -> Tensor:
    """Convert boxes between "xyxy", "xywh" (corner and size) and "cxcywh" (centre and
    size). The rotated formats raise NotImplementedError in ember."""
    allowed = _AXIS_ALIGNED + _ROTATED
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and "
                         f"out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if in_fmt in _ROTATED or out_fmt in _ROTATED:
        raise NotImplementedError(f"box_convert: the rotated box formats ({in_fmt} -> "
                                  f"{out_fmt}) are not implemented in ember")
    return _from_xyxy(_to_xyxy(boxes, in_fmt), out_fmt)


def box_area(boxes: Tensor, fmt: str = "xyxy") -> Tensor:
    """Area of each box of the given format."""
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _inter_union(boxes1: Tensor, boxes2: Tensor) -> tuple[Tensor, Tensor]:
    """Pairwise intersection and union areas of xyxy boxes: (..., N, M) each."""
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = max_(boxes1[..., None, :2], boxes2[..., None, :, :2])  # (..., N, M, 2)
    rb = min_(boxes1[..., None, 2:], boxes2[..., None, :, 2:])
    wh = upcast(rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[..., None] + area2[..., None, :] - inter


def box_iou(boxes1: Tensor, boxes2: Tensor, fmt: str = "xyxy") -> Tensor:
    """(..., N, M) intersection over union of every box of boxes1 with every box of
    boxes2, for the axis-aligned formats (the rotated ones raise NotImplementedError)."""
    if fmt in _ROTATED:
        raise NotImplementedError(f"box_iou: rotated boxes (fmt='{fmt}') are not implemented "
                                  "in ember")
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported format '{fmt}'. Supported axis-aligned formats: "
                         f"{_AXIS_ALIGNED}. Supported rotated formats: {_ROTATED}.")
    inter, union = _inter_union(_to_xyxy(boxes1, fmt), _to_xyxy(boxes2, fmt))
    return inter / union


def _enclosing_wh(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """(..., N, M, 2) width and height of the smallest box enclosing each pair."""
    lt = min_(boxes1[..., None, :2], boxes2[..., None, :, :2])
    rb = max_(boxes1[..., None, 2:], boxes2[..., None, :, 2:])
    return upcast(rb - lt).clamp(min=0)


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """IoU minus the part of the pair's enclosing box that their union leaves empty
    (Rezatofighi et al., 2019): in [-1, 1], informative for disjoint boxes too."""
    inter, union = _inter_union(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    enclosing = wh[..., 0] * wh[..., 1]
    return inter / union - (enclosing - union) / enclosing


def _diou_and_iou(boxes1: Tensor, boxes2: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    iou = box_iou(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    diagonal_squared = wh[..., 0] ** 2 + wh[..., 1] ** 2 + eps
    cx1, cy1 = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    cx2, cy2 = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centers_squared = upcast(cx1[..., None] - cx2[..., None, :]) ** 2 + \
        upcast(cy1[..., None] - cy2[..., None, :]) ** 2
    return iou - centers_squared / diagonal_squared, iou


def distance_box_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> Tensor:
    """IoU minus the squared distance of the centres over the squared diagonal of the
    enclosing box (Zheng et al., 2019)."""
    return _diou_and_iou(upcast(boxes1), upcast(boxes2), eps)[0]


def aspect_ratio_term(w1: Tensor, h1: Tensor, w2: Tensor, h2: Tensor) -> Tensor:
    """CIoU's v: (4 / pi^2) * (atan(w1 / h1) - atan(w2 / h2))^2."""
    return (4 / math.pi ** 2) * (atan(w1 / h1) - atan(w2 / h2)) ** 2


def complete_box_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> Tensor:
    """distance_box_iou minus an aspect-ratio consistency term (Zheng et al., 2020)."""
    boxes1, boxes2 = upcast(boxes1), upcast(boxes2)
    diou, iou = _diou_and_iou(boxes1, boxes2, eps)
    v = aspect_ratio_term(boxes1[..., None, 2] - boxes1[..., None, 0],
                          boxes1[..., None, 3] - boxes1[..., None, 1],
                          boxes2[..., None, :, 2] - boxes2[..., None, :, 0],
                          boxes2[..., None, :, 3] - boxes2[..., None, :, 1])
    with no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks: Tensor) -> Tensor:
    """The xyxy box (inclusive pixel coordinates, float) around the nonzero pixels of each
    (N, H, W) mask; an empty mask gives zeros."""
    if masks.numel() == 0:
        return zeros((0, 4), dtype=float32)
    _, h, w = masks.shape
    rows = any_(masks.bool(), dim=2).float()  # (N, H): which rows hold a pixel
    cols = any_(masks.bool(), dim=1).float()
    y1, x1 = rows.argmax(dim=1), cols.argmax(dim=1)
    y2 = (h - 1) - rows.flip([1]).argmax(dim=1)
    x2 = (w - 1) - cols.flip([1]).argmax(dim=1)
    boxes = stack([x1, y1, x2, y2], dim=1).float()
    boxes[rows.sum(dim=1) == 0] = 0
    return boxes
