"""The generalized IoU loss (torchvision.ops.giou_loss)."""
from __future__ import annotations

from ... import max as max_, min as min_, zeros_like
from ..._tensor import Tensor
from ._utils import reduce_loss, upcast_non_float

__all__ = ["generalized_box_iou_loss"]


def paired_inter_union(boxes1: Tensor, boxes2: Tensor) -> tuple[Tensor, Tensor]:
    """Intersection and union areas of matching pairs of xyxy boxes (boxes1[i] with
    boxes2[i], not all pairs)."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    left, top = max_(x1, x1g), max_(y1, y1g)
    right, bottom = min_(x2, x2g), min_(y2, y2g)
    overlapping = (bottom > top) & (right > left)
    inter = zeros_like(x1)
    inter[overlapping] = (right[overlapping] - left[overlapping]) * \
        (bottom[overlapping] - top[overlapping])
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    return inter, union


def enclosing_corners(boxes1: Tensor, boxes2: Tensor) -> tuple:
    """(x1, y1, x2, y2) of the smallest box around each matching pair."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    return min_(x1, x1g), min_(y1, y1g), max_(x2, x2g), max_(y2, y2g)


def generalized_box_iou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none",
                             eps: float = 1e-7) -> Tensor:
    """1 - GIoU of matching pairs of xyxy boxes; unlike 1 - IoU it still has a gradient
    when the boxes do not overlap."""
    boxes1, boxes2 = upcast_non_float(boxes1), upcast_non_float(boxes2)
    inter, union = paired_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    xc1, yc1, xc2, yc2 = enclosing_corners(boxes1, boxes2)
    enclosing = (xc2 - xc1) * (yc2 - yc1)
    loss = 1 - (iou - (enclosing - union) / (enclosing + eps))
    return reduce_loss(loss, reduction)
